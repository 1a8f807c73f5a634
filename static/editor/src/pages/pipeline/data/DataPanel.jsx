// The Data tab: a node's result in the run being viewed (the latest, or one reopened from the
// history), a page at a time from the server: sorted by a click on a column header, filtered
// by an expression, with a port picker for nodes of several outputs and per-column statistics.

import "./data.css";
import { useContext, useState } from "react";
import { formatCell } from "../../../lib/format.js";
import { shownRun } from "../overlay.js";
import {
  nextSort,
  nodeChoiceText,
  resultPorts,
  rowRange,
  sortState,
  sourceNote,
} from "./resultData.js";
import { useStore } from "../../../lib/store.js";
import { CatalogContext, OverlayContext } from "../contexts.js";
import { askLineage } from "../lineage/lineage.js";
import ColumnStats from "./ColumnStats.jsx";
import PinControls from "../pins/PinControls.jsx";
import { useResultData } from "./useResultData.js";

const PAGE_SIZES = [50, 100, 500];
const FIRST_VIEW = { port: null, offset: 0, limit: 50, sort: null, filter: "", recompute: false };
const ARROWS = { ascending: "▲", descending: "▼", none: "" };

/** `selectedId`: the node selected on the canvas (shown when it is in the run); `operators`:
 * each node's operator name and params by id (`{operator, params}`: its ports follow them). */
export default function DataPanel({ api, selectedId, operators, labels, pins }) {
  const overlay = useContext(OverlayContext);
  const run = useStore(overlay, shownRun);
  // The node selected on the canvas is picked here too, each time the selection changes.
  const [picked, setPicked] = useState(selectedId || null);
  const [withStats, setWithStats] = useState(false);
  const [seenSelected, setSeenSelected] = useState(selectedId);
  if (seenSelected !== selectedId) {
    setSeenSelected(selectedId);
    if (selectedId) setPicked(selectedId);
  }
  if (!run.runId)
    return <p className="pw-muted pw-pad">Run the pipeline to see every node's data here.</p>;
  const order = run.order.length ? run.order : Object.keys(run.nodes);
  const node = picked && run.nodes[picked] ? picked : (order[0] ?? null);
  // Keyed by run and node: another node starts from the first page, unsorted and unfiltered.
  return (
    <NodeData
      key={`${run.runId}:${node}`}
      api={api}
      run={run}
      order={order}
      node={node}
      operator={operators[node]}
      labels={labels}
      onPick={setPicked}
      pins={pins}
      withStats={withStats}
      onStats={setWithStats}
    />
  );
}

function NodeData({ api, run, order, node, operator, labels, onPick, pins, withStats, onStats }) {
  const catalog = useContext(CatalogContext);
  const [view, setView] = useState(FIRST_VIEW);
  const [draft, setDraft] = useState("");
  const nodeRun = node ? run.nodes[node] : undefined;
  const finished = nodeRun?.status === "succeeded";
  // Inside a sub-pipeline node, the node ran as `prefix + id` (subpipelines/inside.js).
  const ranAs = node ? `${run.prefix ?? ""}${node}` : node;
  const { page, stats } = useResultData(api, finished ? run.runId : null, ranAs, view, withStats);
  const ports = resultPorts(nodeRun, operator && catalog.portsOf({ data: operator }));
  const change = (patch) => setView((old) => ({ ...old, offset: 0, ...patch }));
  return (
    <div className="pw-data">
      <form
        className="pw-data-controls"
        onSubmit={(event) => {
          event.preventDefault();
          change({ filter: draft.trim(), recompute: false });
        }}
      >
        <label htmlFor="pw-data-node">Node</label>
        <select
          id="pw-data-node"
          value={node ?? ""}
          onChange={(event) => onPick(event.target.value)}
        >
          {order.map((id) => (
            <option key={id} value={id}>
              {nodeChoiceText(id, labels)}
            </option>
          ))}
        </select>
        {ports.length > 1 ? (
          <>
            <label htmlFor="pw-data-port">Port</label>
            <select
              id="pw-data-port"
              value={view.port ?? page.value?.port ?? ports[0]}
              onChange={(event) => change({ port: event.target.value })}
            >
              {ports.map((port) => (
                <option key={port} value={port}>
                  {port}
                </option>
              ))}
            </select>
          </>
        ) : null}
        <label htmlFor="pw-data-filter">Filter</label>
        <input
          id="pw-data-filter"
          type="search"
          className="pw-data-filter"
          value={draft}
          placeholder="age > 18 and country = 'FR'"
          spellCheck="false"
          onChange={(event) => setDraft(event.target.value)}
        />
        <button type="submit">Apply</button>
        {view.filter ? (
          <button
            type="button"
            onClick={() => {
              setDraft("");
              change({ filter: "" });
            }}
          >
            Clear
          </button>
        ) : null}
        <span className="pw-topbar-spacer" />
        <button type="button" aria-pressed={withStats} onClick={() => onStats((old) => !old)}>
          Column statistics
        </button>
      </form>
      {finished && pins && !run.prefix ? (
        <PinControls pinning={pins} node={node} run={run} page={page.value} />
      ) : null}
      <DataBody
        run={run}
        node={node}
        nodeRun={nodeRun}
        finished={finished}
        page={page}
        stats={stats}
        withStats={withStats}
        view={view}
        onSort={(column) => change({ sort: nextSort(view.sort, column) })}
        onRecompute={(recompute) => {
          if (recompute) setDraft("");
          change(recompute ? { recompute, sort: null, filter: "" } : { recompute });
        }}
      />
      {finished && page.value ? <Pager page={page.value} view={view} onView={setView} /> : null}
    </div>
  );
}

function DataBody({
  run,
  node,
  nodeRun,
  finished,
  page,
  stats,
  withStats,
  view,
  onSort,
  onRecompute,
}) {
  if (!node) return <p className="pw-muted pw-pad">This run has no nodes.</p>;
  if (!finished) {
    const status = nodeRun?.status ?? "not run";
    return (
      <p className="pw-muted pw-pad">
        Node {node} is {status} in run #{run.number}: its data appears once it has succeeded.
      </p>
    );
  }
  const shown = page.value;
  return (
    <>
      {page.error ? (
        <p className="pw-error pw-small" role="alert">
          {page.error.body?.field ? `${page.error.body.field}: ` : ""}
          {page.error.message}
        </p>
      ) : null}
      {shown ? (
        <div className="pw-data-origin">
          <p className="pw-muted pw-small" role="status">
            {rowRange(shown)} · {sourceNote(shown)}
            {page.loading ? " · loading…" : ""}
          </p>
          {shown.source === "stored" && shown.missing_columns?.length ? (
            <button type="button" onClick={() => onRecompute(true)}>
              Show every column (recomputed, first rows)
            </button>
          ) : null}
          {view.recompute ? (
            <button type="button" onClick={() => onRecompute(false)}>
              Back to the stored result
            </button>
          ) : null}
        </div>
      ) : page.loading ? (
        <p className="pw-muted pw-small" role="status">
          Loading the data of {node}…
        </p>
      ) : null}
      <div className="pw-data-body">
        {shown ? (
          <DataTable
            node={node}
            page={shown}
            sort={view.sort}
            sortable={shown.source === "stored"}
            onSort={onSort}
          />
        ) : (
          <div />
        )}
        {withStats ? (
          <aside className="pw-data-side" aria-label="Statistics" tabIndex={0}>
            <h3>Column statistics{view.filter ? " (filtered)" : ""}</h3>
            {shown?.source === "recomputed" ? (
              <p className="pw-muted pw-small">
                {view.recompute
                  ? "Statistics are of the stored result: go back to it to see them."
                  : "Statistics need the whole result, which this run did not keep: run up to this node to keep it."}
              </p>
            ) : null}
            {stats.loading ? <p className="pw-muted pw-small">Computing…</p> : null}
            {stats.error ? (
              <p className="pw-error pw-small" role="alert">
                {stats.error.message}
              </p>
            ) : null}
            {stats.value && !stats.loading && shown?.source === "stored" ? (
              <ColumnStats columns={stats.value.columns} />
            ) : null}
          </aside>
        ) : null}
      </div>
    </>
  );
}

function DataTable({ node, page, sort, sortable, onSort }) {
  const overlay = useContext(OverlayContext);
  return (
    <div className="pw-data-scroll" tabIndex={0} role="region" aria-label={`Data of ${node}`}>
      <table className="pw-table">
        <caption className="pw-visually-hidden">
          {node} · {page.port}: {rowRange(page)}
        </caption>
        <thead>
          <tr>
            {page.columns.map((column) => {
              const state = sortState(sort, column.name);
              return (
                <th key={column.name} scope="col" aria-sort={sortable ? state : undefined}>
                  {sortable ? (
                    <button
                      type="button"
                      className="pw-data-sort"
                      title={`Sort by ${column.name}`}
                      onClick={() => onSort(column.name)}
                    >
                      {column.name}
                      <span className="pw-type">{column.type}</span>
                      <span aria-hidden="true">{ARROWS[state]}</span>
                    </button>
                  ) : (
                    <>
                      {column.name}
                      <span className="pw-type">{column.type}</span>
                    </>
                  )}
                  <button
                    type="button"
                    className="pw-data-lineage"
                    title={`Where ${column.name} comes from: highlight its path on the canvas`}
                    aria-label={`Where ${column.name} comes from`}
                    onClick={() => askLineage(overlay, node, column.name)}
                  >
                    ⤳
                  </button>
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {page.rows.map((row, index) => (
            <tr key={page.offset + index}>
              {row.map((cell, at) => (
                <td key={at} className={cell === null ? "pw-null" : undefined}>
                  {formatCell(cell, page.columns[at]?.type)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Pager({ page, view, onView }) {
  const total = page.total_rows;
  const last =
    total === null ? null : Math.max(0, Math.floor((total - 1) / view.limit) * view.limit);
  const go = (offset) => onView((old) => ({ ...old, offset }));
  const pageNumber = Math.floor(view.offset / view.limit) + 1;
  const pages = total === null ? null : Math.max(1, Math.ceil(total / view.limit));
  // A recomputed result has its first rows only; past them there is nothing to ask for.
  const recomputedEnd = page.recomputed_rows && view.offset + view.limit >= page.recomputed_rows;
  const atEnd =
    recomputedEnd || (last !== null ? view.offset >= last : page.rows.length < view.limit);
  return (
    <nav className="pw-data-pager" aria-label="Pages of rows">
      <button type="button" disabled={view.offset === 0} onClick={() => go(0)}>
        First
      </button>
      <button
        type="button"
        disabled={view.offset === 0}
        onClick={() => go(Math.max(0, view.offset - view.limit))}
      >
        Previous
      </button>
      <span>
        Page {pageNumber.toLocaleString("en-US")}
        {pages ? ` of ${pages.toLocaleString("en-US")}` : ""}
      </span>
      <button type="button" disabled={atEnd} onClick={() => go(view.offset + view.limit)}>
        Next
      </button>
      <button
        type="button"
        disabled={last === null || view.offset >= last}
        onClick={() => go(last)}
      >
        Last
      </button>
      <label htmlFor="pw-data-size">Rows per page</label>
      <select
        id="pw-data-size"
        value={view.limit}
        onChange={(event) =>
          onView((old) => ({ ...old, offset: 0, limit: Number(event.target.value) }))
        }
      >
        {PAGE_SIZES.map((size) => (
          <option key={size} value={size}>
            {size}
          </option>
        ))}
      </select>
    </nav>
  );
}
