// One version of the pipeline beside another, drawn as one read-only graph (versions/versionDiff.js):
// added nodes and edges in green, removed in red, changed in amber; a changed node's params
// side by side. "Restore" makes the version the pipeline again (a new version, undoable).

import "./versions.css";
import {
  Background,
  Controls,
  Handle,
  Position,
  ReactFlow,
  ReactFlowProvider,
} from "@xyflow/react";
import { memo, useEffect, useMemo, useState } from "react";
import { countsLine, shownValue, unionGraph } from "./versionDiff.js";

const MARK_WORDS = {
  added: "added",
  removed: "removed",
  changed: "changed",
  moved: "moved",
  same: "",
};

const VersionNode = memo(function VersionNode({ data }) {
  const { node, mark } = data;
  return (
    <div className={`pw-version-node is-${mark}`} data-node-id={node.id} data-mark={mark}>
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <strong>{node.label || node.id}</strong>
      <span className="pw-muted">{node.operator}</span>
      {MARK_WORDS[mark] ? (
        <span className={`pw-version-mark is-${mark}`}>{MARK_WORDS[mark]}</span>
      ) : null}
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
});

const NODE_TYPES = { version: VersionNode };
// The diff is a map of what changed: the whole graph is fitted, however many nodes (React
// Flow's own limit, 0.5, left a nine-node pipeline cut off in the pane).
const FIT_WHOLE = Object.freeze({ padding: 0.1, minZoom: 0.05 });

/**
 * `item`: the version picked; `items`: the whole list, newest (the pipeline now) first;
 * `loadPair(older, newer)` resolves `{older, newer, diff}`; `onRestore(revision)`; `onClose()`.
 */
export default function VersionView({ item, items, loadPair, onRestore, onClose, readOnly }) {
  const index = items.findIndex((entry) => entry.revision === item.revision);
  const previous = items[index + 1] ?? null;
  const isNow = index === 0;
  const [against, setAgainst] = useState(previous ? "previous" : "now");
  const [pair, setPair] = useState(null);
  const [error, setError] = useState("");
  const [picked, setPicked] = useState(null);
  const [restoring, setRestoring] = useState(false);
  const older = against === "previous" ? previous?.revision : item.revision;
  const newer = against === "previous" ? item.revision : items[0].revision;

  // Another pair of versions starts empty (set while rendering, before it is asked for).
  const pairKey = `${older}:${newer}`;
  const [shownKey, setShownKey] = useState(pairKey);
  if (shownKey !== pairKey) {
    setShownKey(pairKey);
    setPair(null);
    setError("");
    setPicked(null);
  }
  useEffect(() => {
    let stale = false;
    loadPair(older, newer).then(
      (loaded) => !stale && setPair(loaded),
      (failure) => !stale && setError(failure.message),
    );
    return () => {
      stale = true;
    };
  }, [loadPair, older, newer]);

  const graph = useMemo(
    () => (pair ? unionGraph(pair.older, pair.newer, pair.diff) : null),
    [pair],
  );
  const changed = pair?.diff.nodes.changed.find((entry) => entry.id === picked) ?? null;
  const title = isNow ? "The pipeline now" : `Version #${item.revision}`;

  return (
    <section className="pw-version-view" aria-label={`${title}: differences`}>
      <header className="pw-version-head">
        <h2>{title}</h2>
        <span className="pw-muted">
          {item.summary} · {item.author ?? "unknown"} · {new Date(item.saved_at).toLocaleString()}
        </span>
        <div className="pw-version-against" role="group" aria-label="Compare">
          <button
            type="button"
            aria-pressed={against === "previous"}
            disabled={!previous}
            onClick={() => setAgainst("previous")}
          >
            What it changed
          </button>
          <button
            type="button"
            aria-pressed={against === "now"}
            disabled={isNow}
            onClick={() => setAgainst("now")}
          >
            Compared with now
          </button>
        </div>
        <span className="pw-topbar-spacer" />
        {readOnly || isNow ? null : (
          <button
            type="button"
            className="pw-primary"
            disabled={restoring}
            onClick={async () => {
              setRestoring(true);
              const ok = await onRestore(item.revision);
              if (!ok) setRestoring(false);
            }}
          >
            {restoring ? "Restoring…" : `Restore #${item.revision}`}
          </button>
        )}
        <button type="button" onClick={onClose}>
          Back to the editor
        </button>
      </header>
      {error ? (
        <p className="pw-error pw-pad" role="alert">
          {error}
        </p>
      ) : null}
      {pair ? (
        <p className="pw-version-counts" role="status">
          {against === "previous" ? `#${older} → #${newer}` : `#${older} → now`}:{" "}
          {countsLine(pair.diff)}
        </p>
      ) : null}
      <div className="pw-version-body">
        <div className="pw-version-canvas">
          {graph ? (
            <ReactFlowProvider>
              <ReactFlow
                nodes={graph.nodes}
                edges={graph.edges}
                nodeTypes={NODE_TYPES}
                nodesDraggable={false}
                nodesConnectable={false}
                elementsSelectable
                onNodeClick={(_, node) => setPicked(node.id)}
                fitView
                fitViewOptions={FIT_WHOLE}
                minZoom={FIT_WHOLE.minZoom}
                proOptions={{ hideAttribution: true }}
              >
                <Background />
                <Controls showInteractive={false} fitViewOptions={FIT_WHOLE} />
              </ReactFlow>
            </ReactFlowProvider>
          ) : (
            <p className="pw-muted pw-pad">Loading…</p>
          )}
        </div>
        {pair ? (
          <Changes
            diff={pair.diff}
            changed={changed}
            older={older}
            newer={isNow || against === "now" ? "now" : `#${newer}`}
            onPick={setPicked}
          />
        ) : null}
      </div>
    </section>
  );
}

/** The list of what differs, and the picked node's changed fields side by side. */
function Changes({ diff, changed, older, newer, onPick }) {
  const rows = [
    ...diff.nodes.added.map((id) => ["added", id]),
    ...diff.nodes.changed.map((entry) => ["changed", entry.id]),
    ...diff.nodes.removed.map((id) => ["removed", id]),
  ];
  return (
    <aside className="pw-version-changes" aria-label="What differs">
      {changed ? (
        <table className="pw-version-fields">
          <caption>{changed.id}: changed fields</caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">#{older}</th>
              <th scope="col">{newer}</th>
            </tr>
          </thead>
          <tbody>
            {changed.changes.map((change) => (
              <tr key={change.field}>
                <th scope="row">{change.field}</th>
                <td className="is-removed">
                  <pre>{shownValue(change.from)}</pre>
                </td>
                <td className="is-added">
                  <pre>{shownValue(change.to)}</pre>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="pw-muted">Pick a changed node to see its fields side by side.</p>
      )}
      <h3>Nodes</h3>
      {rows.length ? (
        <ul className="pw-version-list">
          {rows.map(([mark, id]) => (
            <li key={`${mark}:${id}`}>
              <button type="button" onClick={() => onPick(id)} className={`is-${mark}`}>
                <span className={`pw-version-mark is-${mark}`}>{mark}</span> {id}
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="pw-muted">No node differs.</p>
      )}
      <OtherChanges diff={diff} />
    </aside>
  );
}

function OtherChanges({ diff }) {
  const lines = [
    ...diff.edges.added.map((edge) => `added edge ${edge.source} → ${edge.target}`),
    ...diff.edges.removed.map((edge) => `removed edge ${edge.source} → ${edge.target}`),
    ...diff.pipeline.map(
      (change) => `${change.field}: ${shownValue(change.from)} → ${shownValue(change.to)}`,
    ),
    ...["notes", "groups"].flatMap((kind) => [
      ...diff[kind].added.map((id) => `added ${kind.slice(0, -1)} ${id}`),
      ...diff[kind].changed.map((entry) => `changed ${kind.slice(0, -1)} ${entry.id}`),
      ...diff[kind].removed.map((id) => `removed ${kind.slice(0, -1)} ${id}`),
    ]),
  ];
  if (!lines.length) return null;
  return (
    <>
      <h3>Also</h3>
      <ul className="pw-version-other">
        {lines.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
    </>
  );
}
