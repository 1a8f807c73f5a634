// The body every operator node shares: title, a one-line summary of what it does (while no
// run is shown; the operator's template filled with the params, canvas/nodes/summary.js), status
// badge, run metrics, problems, its mark
// in the plan view (a tag with its backend, or why it is not run), and one handle per port (React Flow handle id = port name, `data-port` = port name). Zoomed out,
// where its text could not be read, a card is drawn compact: its box, colours and handles, and
// its title in large type while that is readable (canvas/viewport.js `cardDetail`).
// Its size and its handles' places are geometry.js's, which React Flow is given too.

import "./nodes.css";
import "../../pins/pins.css";
import { Handle } from "@xyflow/react";
import { useContext, useMemo, useState } from "react";
import {
  INLINED,
  LOOP_LEGEND,
  aggregateRun,
  ownIterations,
} from "../../subpipelines/subpipelines.js";
import {
  CatalogContext,
  CardDetailContext,
  InsideContext,
  OverlayContext,
  RefusedEndsContext,
} from "../../contexts.js";
import { handleKey } from "../../document/graph.js";
import {
  formatCount,
  formatDuration,
  formatRate,
  rowsIn,
  rowsSummary,
} from "../../../../lib/format.js";
import { planClasses } from "../../plan/plan.js";
import { lineageClass } from "../../lineage/lineage.js";
import { portProblem } from "../../document/problems.js";
import { ChecksBadge } from "../../checks/CheckResults.jsx";
import { outerShown, shownRun } from "../../overlay.js";
import { percentDone, statusOf } from "../../runs/runState.js";
import { useStore } from "../../../../lib/store.js";
import { summaryText } from "./summary.js";
import { portLabel } from "../../document/keyboardConnect.js";
import { PortPickContext } from "../PortTargets.jsx";
import { cardGeometry, handleTop, isLabelled } from "./geometry.js";

const NO_PROBLEMS = [];

/**
 * Whether a card would show the same for React Flow's new props: the card uses only these.
 * The others change when nodes are dragged, and re-rendering every card for them costs a
 * frame on a big canvas. For `memo` of the kind components in this folder.
 */
export function sameCardProps(before, after) {
  return before.id === after.id && before.data === after.data && before.selected === after.selected;
}

/** A node card for `kind` with an icon; the kind components in this folder wrap it. */
export default function NodeCard({ id, data, selected, kind, icon }) {
  const catalog = useContext(CatalogContext);
  const overlay = useContext(OverlayContext);
  const own = useStore(overlay, (state) => shownRun(state).nodes[id]);
  const runNodes = useStore(overlay, (state) =>
    INLINED.has(data.operator) ? shownRun(state).nodes : null,
  );
  const inlined = useMemo(
    () => runNodes && aggregateRun(runNodes, id, catalog.statuses.final),
    [runNodes, id, catalog.statuses.final],
  );
  const run = own ?? inlined;
  const status = statusOf(run);
  // Problems, plan marks, lineage, pins and staleness are the outer pipeline's nodes': none
  // of them is shown on the pipeline inside a sub-pipeline node.
  const problems = useStore(overlay, (state) =>
    outerShown(state) ? (state.problems[id] ?? NO_PROBLEMS) : NO_PROBLEMS,
  );
  const mark = useStore(overlay, (state) => (outerShown(state) ? state.plan?.[id] : undefined));
  const onPath = useStore(overlay, (state) =>
    outerShown(state) ? lineageClass(state.lineage, id) : "",
  );
  const pinned = useStore(overlay, (state) => outerShown(state) && (state.pins?.has(id) ?? false));
  // Marked only over the live run's final statuses (a past run picked is shown as it was).
  const stale =
    useStore(overlay, (state) => !state.viewed && outerShown(state) && state.stale?.has(id)) &&
    catalog.statuses.final.has(status);
  const openInside = useContext(InsideContext);
  // Only crossing the threshold re-renders the card, not every zoom step.
  const detail = useContext(CardDetailContext);
  const compact = detail !== "full";
  const ports = catalog.portsOf({ data });
  const { height, handles } = cardGeometry(ports, problems.length > 0, data.strayPorts);
  return (
    <div
      className={`pw-node pw-kind-${kind} pw-status-${status}${selected ? " is-selected" : ""}${problems.length ? " has-problem" : ""}${compact ? " is-compact" : ""}${stale ? " is-stale" : ""}${planClasses(mark)}${onPath}`}
      data-node-id={id}
      data-status={status}
      data-stale={stale || undefined}
      data-plan={mark?.kind}
      title={mark?.title ?? (run?.error || undefined)}
      style={{ height }}
    >
      {mark ? (
        <span className="pw-plan-tag" aria-label={mark.title}>
          {mark.label}
        </span>
      ) : null}
      {detail === "title" ? (
        <div className="pw-node-big-title" title={data.label || id}>
          {data.label || id}
        </div>
      ) : null}
      {compact ? null : (
        <CardText
          id={id}
          data={data}
          kind={kind}
          icon={icon}
          operator={catalog.byName.get(data.operator)}
          status={status}
          stale={stale}
          pinned={pinned}
          run={run}
          problems={problems}
          ports={ports}
          working={catalog.statuses.working}
        />
      )}
      {inlined && openInside && !compact ? (
        <button
          type="button"
          className="pw-inside-open nodrag"
          title={`Show what ran inside ${data.label || id} in this run`}
          onClick={(event) => {
            event.stopPropagation();
            openInside(id);
          }}
        >
          Run inside ›
        </button>
      ) : null}
      {handles.map((handle) => (
        <PortHandle
          key={`${handle.type}.${handle.id}`}
          nodeId={id}
          handle={handle}
          label={portLabel(
            handle.type,
            handle.id,
            data.label || id,
            handle.type === "target" ? ports.inputs.length : ports.outputs.length,
          )}
          problem={portProblem(
            problems,
            handle.type === "target" ? "inputs" : "outputs",
            handle.id,
          )}
        />
      ))}
    </div>
  );
}

/** A port's handle: red, with the message as its title, when a problem names the port (an
 * input left unconnected, one with too many edges) or when the port is stray; greyed, with
 * the reason as its title, while a connection is dragged that may not end at it. It can be
 * focused (`label` names it) and Enter on it lists where it can connect (PortTargets.jsx). */
function PortHandle({ nodeId, handle, problem, label }) {
  const pick = useContext(PortPickContext);
  const stray = handle.stray === true;
  const refused = useContext(RefusedEndsContext).get(handleKey(nodeId, handle.type, handle.id));
  const title = stray
    ? `${handle.id}: not a port of this operator; delete its edge`
    : refused
      ? `${handle.id}: ${refused}`
      : problem
        ? `${handle.id}: ${problem.message}`
        : undefined;
  const className = [
    stray ? "pw-handle-stray" : problem ? "has-problem" : null,
    refused ? "pw-handle-refused" : null,
  ]
    .filter(Boolean)
    .join(" ");
  return (
    <Handle
      type={handle.type}
      position={handle.position}
      id={handle.id}
      data-port={handle.id}
      className={className || undefined}
      title={title}
      isConnectable={!stray}
      style={{ top: handleTop(handle) }}
      tabIndex={pick && !stray ? 0 : undefined}
      role={pick && !stray ? "button" : undefined}
      aria-label={label}
      onKeyDown={
        pick && !stray
          ? (event) => {
              if (event.key !== "Enter" && event.key !== " ") return;
              event.preventDefault();
              event.stopPropagation(); // React Flow's node would take Enter as "select"
              pick({ nodeId, id: handle.id, type: handle.type }, event.currentTarget);
            }
          : undefined
      }
    />
  );
}

/** What a card says: its title, its summary or its run, its first problem and its ports' names. */
function CardText({
  id,
  data,
  kind,
  icon,
  operator,
  status,
  stale,
  pinned,
  run,
  problems,
  ports,
  working,
}) {
  const summary =
    status === "idle" ? summaryText(operator?.summary, data.params, operator?.params_schema) : "";
  return (
    <>
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
      {/* Always there and of fixed height: the card's height is declared to React Flow
          (geometry.js), and a run must not change it. While idle it holds the summary. */}
      <div className={`pw-node-run${status === "idle" ? " is-idle" : ""}`}>
        {summary ? (
          <span className="pw-node-summary" title={summary}>
            {summary}
          </span>
        ) : null}
        {status !== "idle" ? (
          <StatusBadge
            status={status}
            working={working}
            cached={run?.metrics?.cached === true}
            compact
          />
        ) : null}
        {status !== "idle" ? <ChecksBadge checks={run?.metrics?.checks} /> : null}
        {stale ? (
          <span
            className="pw-badge pw-stale"
            title="Edited since the last run (or below a node that was): the next run computes it again"
          >
            stale
          </span>
        ) : null}
        {pinned ? (
          <span
            className="pw-badge pw-pin"
            title="Pinned: runs use its pin's rows and do not run it"
          >
            pinned
          </span>
        ) : null}
        {run && status !== "idle" ? <Metrics run={run} kind={kind} working={working} /> : null}
      </div>
      {problems.length ? (
        <div className="pw-node-problem" role="note" title={problems[0].message}>
          <span className="pw-problem-badge">⚠ {problems.length}</span> {problems[0].message}
        </div>
      ) : null}
      {isLabelled(ports) ? <PortNames ports={ports} /> : null}
    </>
  );
}

/** The names of a card's ports, one row per input and output side by side. */
function PortNames({ ports: { inputs, outputs } }) {
  const rows = Math.max(inputs.length, outputs.length);
  return (
    <div className="pw-node-ports">
      {Array.from({ length: rows }, (_, index) => (
        <div className="pw-port-row" key={index}>
          <span className="pw-port-name">{inputs.length > 1 ? inputs[index]?.name : null}</span>
          <span className="pw-port-name">{outputs.length > 1 ? outputs[index]?.name : null}</span>
        </div>
      ))}
    </div>
  );
}

/** A pill with the status, and a spinner while the node works (`working`: a status set); a
 * node whose result was reused from the cache says "cached". `compact` (a card's, where the
 * row counts need the room): a success is a check mark, the word its title and name. */
export function StatusBadge({ status, working, cached = false, compact = false }) {
  if (compact && !cached && status === "succeeded") {
    return (
      <span
        className="pw-badge pw-status-succeeded pw-compact"
        role="img"
        aria-label="succeeded"
        title="succeeded"
      >
        ✓
      </span>
    );
  }
  if (cached && status === "succeeded") {
    return (
      <span
        className="pw-badge pw-status-succeeded pw-cached"
        title="Reused from the cache: nothing it depends on changed since it ran"
      >
        cached
      </span>
    );
  }
  return (
    <span className={`pw-badge pw-status-${status}`}>
      {working.has(status) ? <span className="pw-spinner" aria-hidden="true" /> : null}
      {status.replace("_", " ")}
    </span>
  );
}

function Metrics({ run, kind, working }) {
  const metrics = run.metrics ?? {};
  const drawnAt = useTimeSeen(run);
  if (run.inlined) {
    const counted = run.inlined.loop
      ? LOOP_LEGEND
      : "the sub-pipeline's inlined nodes: ended / all";
    const legend = `${counted} · the most rows one gave out`;
    return (
      <span className="pw-node-metrics" title={legend}>
        <span className="pw-node-metric-line">{run.inlined.nodes}</span>
        <span className="pw-node-metric-line">{run.inlined.rows}</span>
      </span>
    );
  }
  if (working.has(run.status)) {
    const elapsed = run.since ? (drawnAt - Date.parse(run.since)) / 1000 : null;
    const rate = formatRate(run.rows, elapsed, CARD_RATE_UNIT);
    const iterations = ownIterations(run);
    const done = [
      iterations,
      run.rows !== null ? `${formatCount(run.rows)} rows` : null,
      iterations ? null : percentDone(run), // a loop's share done is its runs ended
    ].filter(Boolean);
    const rows = done.length ? done.join(" · ") : null;
    return (
      <MetricLines
        rows={rows}
        seconds={elapsed}
        rate={rate}
        legend={iterations ? LOOP_LEGEND : undefined}
      />
    );
  }
  const iterations = ownIterations(run);
  const rows = iterations ?? rowsSummary(kind, metrics, run.status);
  if (rows === null && metrics.duration_s == null) return null;
  const rate = formatRate(rowsIn(metrics) ?? metrics.rows_out, metrics.duration_s, CARD_RATE_UNIT);
  const counted = iterations
    ? LOOP_LEGEND
    : kind === "output"
      ? "rows written"
      : "rows in → rows out";
  const legend = `${counted} · duration${rate ? " · rows per second" : ""}`;
  return <MetricLines rows={rows} seconds={metrics.duration_s} rate={rate} legend={legend} />;
}

const CARD_RATE_UNIT = "/s"; // "rows/s" does not fit beside the badge; the legend says it

/** Two lines that never wrap (the card's height is fixed): the rows, then time and rate. */
function MetricLines({ rows, seconds, rate, legend }) {
  const timing = [seconds != null ? formatDuration(seconds) : null, rate]
    .filter(Boolean)
    .join(" · ");
  return (
    <span className="pw-node-metrics" title={legend}>
      {rows !== null ? <span className="pw-node-metric-line">{rows}</span> : null}
      {timing ? <span className="pw-node-metric-line">{timing}</span> : null}
    </span>
  );
}

/** When `value` was first drawn (ms since the epoch): the clock is read once for each value (a
 * node's run state, new with each of its frames), not again at every render. */
function useTimeSeen(value) {
  const [seen, setSeen] = useState(() => ({ value, at: Date.now() }));
  if (seen.value !== value) setSeen(() => ({ value, at: Date.now() }));
  return seen.at;
}
