// Run history: the pipeline's runs, "#12 · succeeded · alice · 3.2 s · 5 min ago"; picking
// one shows that run's own document on the canvas, read-only, as the run ended. "Compare
// with…" opens two runs side by side (compare/RunCompareView.jsx).

import "../../../ui/menu.css";
import "./runs.css";
import { timeAgo } from "../../../lib/format.js";
import { durationLabel } from "./durations.js";
import { untunedLabel } from "./runOptions.js";
import { runOrigin } from "./runOrigin.js";
import { useLoadedMenu } from "../../../ui/useLoadedMenu.js";

/** A menu button; `load()` fetches the runs, `onPick(run)` shows one, `onLive()` goes back,
 * `onCompare(runs)` compares the one viewed (else the latest) with another. */
export default function HistoryMenu({ load, onPick, onLive, onCompare, viewedId, userName }) {
  const { open, setOpen, answer, error, box } = useLoadedMenu(load);
  const runs = answer?.items ?? null;
  return (
    <div className="pw-menu" ref={box}>
      <button type="button" aria-expanded={open} onClick={() => setOpen(!open)}>
        History
      </button>
      {open ? (
        <div className="pw-menu-items pw-history" role="menu">
          <button
            type="button"
            role="menuitem"
            className={viewedId === null ? "is-current" : ""}
            onClick={() => {
              onLive();
              setOpen(false);
            }}
          >
            Latest (live)
          </button>
          {runs?.length ? (
            <button
              type="button"
              role="menuitem"
              onClick={() => {
                onCompare(runs);
                setOpen(false);
              }}
            >
              {compareLabel(runs, viewedId)}
            </button>
          ) : null}
          {error ? <p className="pw-error pw-pad">{error}</p> : null}
          {runs === null && !error ? <p className="pw-muted pw-pad">Loading…</p> : null}
          {runs?.length === 0 ? <p className="pw-muted pw-pad">No runs yet.</p> : null}
          {runs?.map((run) => (
            <button
              type="button"
              role="menuitem"
              key={run.id}
              className={viewedId === run.id ? "is-current" : ""}
              onClick={() => {
                onPick(run);
                setOpen(false);
              }}
            >
              {runLine(run, userName)}
            </button>
          ))}
        </div>
      ) : null}
    </div>
  );
}

/** "Compare #12 with…" for the run viewed, else "Compare with…" (the latest run). */
function compareLabel(runs, viewedId) {
  const viewed = runs.find((run) => run.id === viewedId);
  return viewed ? `Compare #${viewed.number} with…` : "Compare with…";
}

/** "#12 · succeeded · alice · start to end 3.2 s · 5 min ago" (you: "you"; a schedule's,
 * trigger's or backfill's run: what started it, `runOrigin`; a run that used pins: "with pins";
 * one planned without past runs' figures: "untuned"; parts not known are left out). */
function runLine(run, userName) {
  const by = run.started_by ? (run.started_by === userName ? "you" : run.started_by) : null;
  const who = runOrigin(run, by);
  const took = run.duration_s != null ? durationLabel("recorded", run.duration_s) : null;
  const pinned = run.pins?.length
    ? { text: "with pins", title: `Pinned: ${run.pins.join(", ")}` }
    : null;
  return (
    <span className="pw-run-line">
      <strong>#{run.number}</strong>
      {" · "}
      <span className={`pw-badge pw-status-${run.status}`}>{run.status.replace("_", " ")}</span>
      {[who, pinned, untunedLabel(run), took, timeAgo(run.created_at)]
        .filter(Boolean)
        .map((part, index) => (
          <span key={index} className="pw-muted" title={part.title}>
            {` · ${part.text ?? part}`}
          </span>
        ))}
    </span>
  );
}
