// The body every operator node shares: title, status badge, run metrics, problems, and one
// handle per port (React Flow handle id = port name, `data-port` = port name).

import { Handle, Position } from "@xyflow/react";
import { createContext, useContext } from "react";
import { formatCount, formatDuration, formatRate, rowsIn, rowsSummary } from "../format.js";
import { shownRun } from "../editor/overlay.js";
import { nodeStatus } from "../runState.js";
import { useStore } from "../store.js";

/** The catalog (see catalog.js), for node components. */
export const CatalogContext = createContext(null);
/** The store of run states and problems that nodes show (see editor/overlay.js). */
export const OverlayContext = createContext(null);

const NO_PROBLEMS = [];

/**
 * Whether a card would show the same for React Flow's new props: the card uses only these.
 * The others change when nodes are measured or dragged, and re-rendering every card for them
 * costs a frame on a big canvas. For `memo` of the kind components in this folder.
 */
export function sameCardProps(before, after) {
  return before.id === after.id && before.data === after.data && before.selected === after.selected;
}

/** A node card for `kind` with an icon; the kind components in this folder wrap it. */
export default function NodeCard({ id, data, selected, kind, icon }) {
  const catalog = useContext(CatalogContext);
  const overlay = useContext(OverlayContext);
  const run = useStore(overlay, (state) => shownRun(state).nodes[id]);
  const status = useStore(overlay, (state) => nodeStatus(shownRun(state), id));
  const problems = useStore(overlay, (state) => state.problems[id] ?? NO_PROBLEMS);
  const operator = catalog.byName.get(data.operator);
  const { inputs, outputs } = catalog.portsOf({ data });
  const labelled = inputs.length > 1 || outputs.length > 1;
  const rowsCount = Math.max(inputs.length, outputs.length);
  return (
    <div
      className={`pw-node pw-kind-${kind} pw-status-${status}${selected ? " is-selected" : ""}${problems.length ? " has-problem" : ""}`}
      data-node-id={id}
      data-status={status}
      title={run?.error || undefined}
    >
      <div className="pw-node-head">
        <span className="pw-node-icon" aria-hidden="true">
          {icon}
        </span>
        <div className="pw-node-titles">
          <div className="pw-node-label">{data.label || id}</div>
          <div className="pw-node-operator">
            {operator ? operator.title : `unknown operator ${data.operator}`}
            {data.label ? <span className="pw-node-id"> · {id}</span> : null}
          </div>
        </div>
      </div>
      {/* Always there (hidden while idle) and of fixed height: a card that grows when its
          run starts makes React Flow re-measure every node and re-route every edge. */}
      <div className={`pw-node-run${status === "idle" ? " is-idle" : ""}`}>
        {status !== "idle" ? <StatusBadge status={status} /> : null}
        {run && status !== "idle" ? <Metrics run={run} kind={kind} /> : null}
      </div>
      {problems.length ? (
        <div className="pw-node-problem" role="note">
          <span className="pw-problem-badge">⚠ {problems.length}</span> {problems[0].message}
        </div>
      ) : null}
      {labelled ? (
        <div className="pw-node-ports">
          {Array.from({ length: rowsCount }, (_, index) => (
            <div className="pw-port-row" key={index}>
              {inputs[index] ? <PortHandle port={inputs[index]} type="target" labelled={inputs.length > 1} /> : <span />}
              {outputs[index] ? <PortHandle port={outputs[index]} type="source" labelled={outputs.length > 1} /> : <span />}
            </div>
          ))}
        </div>
      ) : (
        <>
          {inputs[0] ? <Handle type="target" position={Position.Left} id={inputs[0].name} data-port={inputs[0].name} /> : null}
          {outputs[0] ? <Handle type="source" position={Position.Right} id={outputs[0].name} data-port={outputs[0].name} /> : null}
        </>
      )}
    </div>
  );
}

function PortHandle({ port, type, labelled }) {
  const isInput = type === "target";
  return (
    <div className={`pw-port ${isInput ? "pw-port-in" : "pw-port-out"}`}>
      <Handle type={type} position={isInput ? Position.Left : Position.Right} id={port.name} data-port={port.name} />
      {labelled ? <span className="pw-port-name">{port.name}</span> : null}
    </div>
  );
}

/** A pill with the status, and a spinner while running. */
export function StatusBadge({ status }) {
  return (
    <span className={`pw-badge pw-status-${status}`}>
      {status === "running" || status === "retrying" ? <span className="pw-spinner" aria-hidden="true" /> : null}
      {status.replace("_", " ")}
    </span>
  );
}

function Metrics({ run, kind }) {
  const metrics = run.metrics ?? {};
  if (run.status === "running" || run.status === "retrying") {
    const elapsed = run.since ? (Date.now() - Date.parse(run.since)) / 1000 : null;
    const rate = formatRate(run.rows, elapsed);
    return (
      <span className="pw-node-metrics">
        {run.rows !== null ? <span>{formatCount(run.rows)} rows</span> : null}
        {elapsed !== null ? <span>{formatDuration(elapsed)}</span> : null}
        {rate ? <span>{rate}</span> : null}
      </span>
    );
  }
  const rows = rowsSummary(kind, metrics);
  if (rows === null && metrics.duration_s == null) return null;
  const rate = formatRate(rowsIn(metrics) ?? metrics.rows_out, metrics.duration_s);
  const legend = `${kind === "output" ? "rows written" : "rows in → rows out"} · duration${rate ? ` · ${rate}` : ""}`;
  return (
    <span className="pw-node-metrics" title={legend}>
      {rows !== null ? <span>{rows}</span> : null}
      {metrics.duration_s != null ? <span>{formatDuration(metrics.duration_s)}</span> : null}
      {rate ? <span className="pw-node-rate">{rate}</span> : null}
    </span>
  );
}
