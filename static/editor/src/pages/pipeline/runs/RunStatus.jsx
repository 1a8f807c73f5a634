// What the canvas says about the run it shows: a progress bar under the top bar, and, for a
// past run picked from the history, a banner with its number, the revision it ran, how it
// ended and the parameters it used.

import "./runs.css";
import { useContext } from "react";
import { durationLabel } from "./durations.js";
import { untunedLabel } from "./runOptions.js";
import { shownRun } from "../overlay.js";
import { runOrigin } from "./runOrigin.js";
import { runProgress } from "./runState.js";
import { useStore } from "../../../lib/store.js";
import { CatalogContext, OverlayContext } from "../contexts.js";

/** How many of the shown run's nodes are done. */
export function RunProgress() {
  const overlay = useContext(OverlayContext);
  const { statuses } = useContext(CatalogContext);
  const status = useStore(overlay, (value) => shownRun(value).status);
  const done = useStore(overlay, (value) => runProgress(shownRun(value), statuses).done);
  const total = useStore(overlay, (value) => runProgress(shownRun(value), statuses).total);
  if (status === "idle" || !total) return <div className="pw-progress" aria-hidden="true" />;
  const percent = Math.round((done / total) * 100);
  return (
    <div
      className={`pw-progress pw-progress-${status}`}
      role="progressbar"
      aria-label="Run progress"
      aria-valuemin={0}
      aria-valuemax={total}
      aria-valuenow={done}
      title={`${done} of ${total} nodes done`}
    >
      <div className="pw-progress-fill" style={{ width: `${percent}%` }} />
    </div>
  );
}

/** The banner over a past run, whose own document the canvas shows read-only; `onLive` goes
 * back to the editor (and its live run). */
export function ViewedRunBanner({ onLive, liveRunId }) {
  const overlay = useContext(OverlayContext);
  const viewed = useStore(overlay, (value) => value.viewed);
  const inside = useStore(overlay, (value) => value.inside !== null);
  if (!viewed || inside) return null; // subpipelines/InsideBanner.jsx says which run it is
  const parameters = Object.entries(viewed.parameters ?? {});
  const origin = viewed.trigger === "manual" ? null : runOrigin(apiShaped(viewed), null);
  return (
    <div className="pw-banner" role="status">
      <span>
        <strong>Run #{viewed.number ?? viewed.runId}</strong>
        {viewed.revision != null ? ` · revision ${viewed.revision}` : ""}
        {" · "}
        {viewed.status}
        {viewed.durationS != null ? (
          <span title={durationLabel("recorded", viewed.durationS).title}>
            {` · ${durationLabel("recorded", viewed.durationS).text}`}
          </span>
        ) : null}
        {viewed.runId === liveRunId ? " (the latest run)" : ""}
        {untunedLabel(viewed) ? (
          <span title={untunedLabel(viewed).title}>{` · ${untunedLabel(viewed).text}`}</span>
        ) : null}
        {origin ? <span title={origin.title}>{` · ${origin.text}`}</span> : null}
        {" · read only"}
        {parameters.length ? (
          <span className="pw-banner-parameters">
            {" · parameters: "}
            {parameters.map(([name, value]) => `${name} = ${JSON.stringify(value)}`).join(", ")}
          </span>
        ) : null}
        {viewed.upstreamRuns?.length ? (
          <span className="pw-banner-parameters">
            {" · read: "}
            {viewed.upstreamRuns
              .map(
                (up) => `${up.pipeline_name} ${up.number ? `run #${up.number}` : "(no run yet)"}`,
              )
              .join(", ")}
          </span>
        ) : null}
      </span>
      <button type="button" onClick={onLive}>
        Back to the editor
      </button>
    </div>
  );
}

/** The fields `runOrigin` reads, as the API names them. */
function apiShaped(viewed) {
  return {
    trigger: viewed.trigger,
    triggered_by: viewed.triggeredBy,
    started_from: viewed.startedFrom,
  };
}
