// The bottom panel: the run's log (filterable by node), a node's data preview, every node's
// data after a run, the plan (the plan view is on while its tab is shown) and the run's
// timeline; collapsible, and resized by dragging its top edge (PanelSplitter).

import "./BottomPanel.css";
import { memo, useContext, useEffect, useRef, useState } from "react";
import { formatCell } from "../../../lib/format.js";
import { OverlayContext } from "../contexts.js";
import { shownRun } from "../overlay.js";
import { useStore } from "../../../lib/store.js";
import DataPanel from "../data/DataPanel.jsx";
import { nodeChoiceText, previewCaption } from "../data/resultData.js";
import { noLogsText } from "./logLines.js";
import PlanPanel from "../plan/PlanPanel.jsx";
import Timeline from "../runs/Timeline.jsx";
import PanelSplitter from "./PanelSplitter.jsx";

const SHOWN_LINES = 500;

/** `tab` is "logs", "preview", "data", "plan" or "timeline"; `preview` is `{node, loading,
 * error, result}` or null; `plan` is usePlanView's answer, `dirty` whether there are unsaved
 * changes; `labels` the nodes' labels by id; `data` the Data tab's `{api, selectedId,
 * operators}`; `height` the one chosen (px, or null), `onResize(height)` keeps a new one. */
function BottomPanel({
  open,
  tab,
  onTab,
  onToggle,
  height,
  onResize,
  preview,
  nodeIds,
  labels,
  plan,
  dirty,
  data,
}) {
  const overlay = useContext(OverlayContext);
  const logCount = useStore(overlay, (state) => shownRun(state).logs.length);
  return (
    <section
      className={`pw-bottom${open ? " is-open" : ""}`}
      aria-label="Logs, preview, data, plan and timeline"
      style={open && height ? { height } : undefined}
    >
      {open ? <PanelSplitter height={height} onResize={onResize} /> : null}
      <div className="pw-bottom-tabs">
        <div className="pw-bottom-tablist" role="tablist" aria-label="Panel">
          <button
            type="button"
            role="tab"
            aria-selected={open && tab === "logs"}
            onClick={() => onTab("logs")}
          >
            Logs{logCount ? ` (${logCount})` : ""}
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={open && tab === "preview"}
            onClick={() => onTab("preview")}
          >
            Preview{preview ? ` · ${preview.node}` : ""}
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={open && tab === "data"}
            onClick={() => onTab("data")}
            title="Every node's data in the run shown: paged, sorted, filtered, with statistics"
          >
            Data
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={open && tab === "plan"}
            onClick={() => onTab("plan")}
            title="Where each node runs: segments and their backend, nodes not run"
          >
            Plan
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={open && tab === "timeline"}
            onClick={() => onTab("timeline")}
            title="When each node ran: one bar per attempt"
          >
            Timeline
          </button>
        </div>
        <span className="pw-topbar-spacer" />
        <button
          type="button"
          className="pw-icon-button"
          aria-label={open ? "Collapse the panel" : "Expand the panel"}
          aria-expanded={open}
          onClick={onToggle}
        >
          {open ? "▾" : "▴"}
        </button>
      </div>
      {open ? (
        <div className="pw-bottom-body" role="tabpanel">
          <Tab
            tab={tab}
            nodeIds={nodeIds}
            labels={labels}
            plan={plan}
            dirty={dirty}
            preview={preview}
            data={data}
          />
        </div>
      ) : null}
    </section>
  );
}

function Tab({ tab, nodeIds, labels, plan, dirty, preview, data }) {
  if (tab === "logs") return <Logs nodeIds={nodeIds} labels={labels} />;
  if (tab === "data") return <DataPanel {...data} labels={labels} />;
  if (tab === "plan") return <PlanPanel view={plan} dirty={dirty} labels={labels} />;
  if (tab === "timeline") return <Timeline labels={labels} />;
  return <Preview preview={preview} />;
}

function Logs({ nodeIds, labels }) {
  const overlay = useContext(OverlayContext);
  const run = useStore(overlay, shownRun);
  const logs = run.logs;
  const [node, setNode] = useState("");
  const end = useRef(null);
  const shown = (node ? logs.filter((entry) => entry.node === node) : logs).slice(-SHOWN_LINES);
  useEffect(() => {
    end.current?.scrollIntoView({ block: "nearest" });
  }, [shown.length]);
  const choices = [
    ...new Set([...nodeIds, ...logs.map((entry) => entry.node).filter(Boolean)]),
  ].sort();
  return (
    <div className="pw-logs">
      <div className="pw-logs-filter">
        <label htmlFor="pw-log-node">Node</label>
        <select id="pw-log-node" value={node} onChange={(event) => setNode(event.target.value)}>
          <option value="">All nodes</option>
          {choices.map((id) => (
            <option key={id} value={id}>
              {nodeChoiceText(id, labels)}
            </option>
          ))}
        </select>
      </div>
      <ol className="pw-log-lines">
        {shown.map((entry, index) => (
          <li key={index} className={`pw-log-${entry.level}`}>
            <span className="pw-log-time">{entry.time ? entry.time.slice(11, 23) : ""}</span>
            <span className="pw-log-node" title={entry.node ?? undefined}>
              {entry.node ? labels?.[entry.node] || entry.node : "run"}
            </span>
            <span className="pw-log-level">{entry.level}</span>
            <span className="pw-log-message">{entry.message}</span>
          </li>
        ))}
        {!shown.length ? <li className="pw-muted">{noLogsText(run, node)}</li> : null}
        <li ref={end} aria-hidden="true" />
      </ol>
    </div>
  );
}

/** 1 → "1st", 2 → "2nd", 11 → "11th", 23 → "23rd". */
function ordinal(count) {
  const teen = count % 100 >= 11 && count % 100 <= 13;
  const suffix = teen ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[count % 10] ?? "th");
  return `${count}${suffix}`;
}

function Preview({ preview }) {
  if (!preview)
    return (
      <p className="pw-muted pw-pad">Select a node and press “Preview” to see its first rows.</p>
    );
  if (preview.loading && preview.place) {
    return (
      <p className="pw-muted pw-pad">
        Waiting for a process to preview {preview.node} ({ordinal(preview.place)} in line)…
      </p>
    );
  }
  if (preview.loading)
    return <p className="pw-muted pw-pad">Computing the first rows of {preview.node}…</p>;
  if (preview.error) {
    return (
      <p className="pw-error pw-pad" role="alert">
        {preview.node}: {preview.error}
      </p>
    );
  }
  const { columns, rows } = preview.result;
  return (
    <div className="pw-preview">
      <p className="pw-muted pw-small">{previewCaption(preview.node, preview.result)}</p>
      <div className="pw-preview-scroll">
        <table className="pw-table">
          <thead>
            <tr>
              {columns.map((column) => (
                <th key={column.name}>
                  {column.name}
                  <span className="pw-type">{column.type}</span>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr key={index}>
                {row.map((cell, at) => (
                  <td key={at} className={cell === null ? "pw-null" : undefined}>
                    {formatCell(cell, columns[at]?.type)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

export default memo(BottomPanel);
