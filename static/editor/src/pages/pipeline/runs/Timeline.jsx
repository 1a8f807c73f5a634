// The Timeline tab: a Gantt chart of the run the canvas shows (the live one or a past one),
// one row per node, one bar per attempt coloured by how it ended, on a time axis. While the
// run goes on it is redrawn every TICK_MS, so running attempts grow. Only the rows in view
// are drawn (ROW_HEIGHT each), so 1,000 nodes cost what 20 do. The chart is an image with a
// summary for its name; "As a table" shows the same attempts as a table.

import "./Timeline.css";
import { memo, useContext, useEffect, useMemo, useState } from "react";
import { formatDuration, formatTime } from "../../../lib/format.js";
import { durationLabel } from "./durations.js";
import { shownRun } from "../overlay.js";
import { isActive } from "./runState.js";
import { useStore } from "../../../lib/store.js";
import { timelineLayout, timelineSummary } from "./timeline.js";
import { CatalogContext, OverlayContext } from "../contexts.js";

const ROW_HEIGHT = 22;
const OVERSCAN_ROWS = 8;
const TICK_MS = 250;
const TABLE_MAX_ATTEMPTS = 500;

/** `labels`: node id → label (the editor's); a past run's own document names its nodes. */
function Timeline({ labels }) {
  const overlay = useContext(OverlayContext);
  const { statuses } = useContext(CatalogContext);
  const run = useStore(overlay, shownRun);
  const live = isActive(run, statuses);
  const now = useNow(live);
  const names = useMemo(
    () => ({ ...labels, ...documentLabels(run.document) }),
    [labels, run.document],
  );
  const layout = useMemo(
    () => timelineLayout(run, { now, live, labels: names }),
    [run, now, live, names],
  );
  const [asTable, setAsTable] = useState(false);
  if (run.status === "idle")
    return (
      <p className="pw-muted pw-pad">No run yet. Run the pipeline to see when each node ran.</p>
    );
  const summary = timelineSummary(layout, run);
  return (
    <div className="pw-timeline">
      <div className="pw-timeline-head">
        <p className="pw-small" title={durationLabel("nodes", layout.durationS).title}>
          {summary}
        </p>
        <span className="pw-topbar-spacer" />
        <button type="button" aria-pressed={asTable} onClick={() => setAsTable(!asTable)}>
          As a table
        </button>
      </div>
      {asTable ? <AttemptTable layout={layout} /> : <Chart layout={layout} summary={summary} />}
    </div>
  );
}

/** The axis and the rows in view. */
function Chart({ layout, summary }) {
  const [scroll, setScroll] = useState({ top: 0, height: 400 });
  const first = Math.max(0, Math.floor(scroll.top / ROW_HEIGHT) - OVERSCAN_ROWS);
  const last = Math.min(
    layout.rows.length,
    Math.ceil((scroll.top + scroll.height) / ROW_HEIGHT) + OVERSCAN_ROWS,
  );
  const measure = (element) =>
    element && setScroll({ top: element.scrollTop, height: element.clientHeight });
  return (
    <>
      <div className="pw-timeline-axis" aria-hidden="true">
        <span className="pw-timeline-label" />
        <div className="pw-timeline-track">
          {layout.ticks.map((tick) => (
            <span
              key={tick.label}
              className="pw-timeline-tick"
              style={{ left: `${tick.at * 100}%` }}
            >
              {tick.label}
            </span>
          ))}
        </div>
      </div>
      <div
        className="pw-timeline-scroll"
        tabIndex={0}
        role="region"
        aria-label="Timeline rows"
        onScroll={(event) => measure(event.currentTarget)}
        ref={(element) => element && element.clientHeight !== scroll.height && measure(element)}
      >
        <div
          role="img"
          aria-label={summary}
          className="pw-timeline-rows"
          style={{ height: layout.rows.length * ROW_HEIGHT }}
        >
          {layout.rows.slice(first, last).map((row, index) => (
            <div
              key={row.id}
              className="pw-timeline-row"
              data-timeline-node={row.id}
              style={{ top: (first + index) * ROW_HEIGHT, height: ROW_HEIGHT }}
            >
              <span
                className="pw-timeline-label"
                title={row.label === row.id ? row.id : `${row.label} (${row.id})`}
              >
                {row.label}
              </span>
              <div className="pw-timeline-track">
                {row.bars.map((bar, index) => (
                  <span
                    key={index}
                    className={`pw-timeline-bar pw-status-${bar.status}${bar.open ? " is-open" : ""}`}
                    data-attempt={bar.attempt}
                    data-status={bar.status}
                    style={{ left: `${bar.left * 100}%`, width: `${bar.width * 100}%` }}
                    title={`${row.label} · attempt ${bar.attempt} · ${bar.status.replace("_", " ")} · ${formatDuration(bar.durationS)}`}
                  />
                ))}
              </div>
            </div>
          ))}
        </div>
      </div>
    </>
  );
}

/** The attempts as a table (at most TABLE_MAX_ATTEMPTS), for those who cannot see the chart. */
function AttemptTable({ layout }) {
  // Keyed by place: a run started again (its Dask worker lost) numbers its attempts anew.
  const attempts = layout.rows.flatMap((row) =>
    row.bars.map((bar, index) => ({ row, bar, key: `${row.id}/${index}` })),
  );
  return (
    <div className="pw-timeline-scroll" tabIndex={0} role="region" aria-label="Attempts">
      <table className="pw-table">
        <caption className="pw-visually-hidden">
          Each attempt of each node: when it started and how long it took
        </caption>
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">Attempt</th>
            <th scope="col">Status</th>
            <th scope="col">Started</th>
            <th scope="col">Duration</th>
          </tr>
        </thead>
        <tbody>
          {attempts.slice(0, TABLE_MAX_ATTEMPTS).map(({ row, bar, key }) => (
            <tr key={key}>
              <td>{row.label}</td>
              <td>{bar.attempt}</td>
              <td>{bar.status.replace("_", " ")}</td>
              <td>{formatTime(new Date(bar.from).toISOString())}</td>
              <td>{formatDuration(bar.durationS)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {attempts.length > TABLE_MAX_ATTEMPTS ? (
        <p className="pw-muted pw-pad">
          The first {TABLE_MAX_ATTEMPTS} of {attempts.length} attempts.
        </p>
      ) : null}
    </div>
  );
}

/** The time now, again every TICK_MS while `ticking`. */
function useNow(ticking) {
  const [now, setNow] = useState(Date.now);
  // Read the clock again as the ticking starts, from the render that starts it.
  const [wasTicking, setWasTicking] = useState(ticking);
  if (wasTicking !== ticking) {
    setWasTicking(ticking);
    if (ticking) setNow(() => Date.now());
  }
  useEffect(() => {
    if (!ticking) return undefined;
    const timer = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}

function documentLabels(document) {
  const labels = {};
  for (const node of document?.nodes ?? []) if (node.label) labels[node.id] = node.label;
  return labels;
}

export default memo(Timeline);
