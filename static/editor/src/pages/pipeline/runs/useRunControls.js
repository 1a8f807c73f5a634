// Starting, cancelling and looking back at runs: Run (with its parameters dialog), Cancel,
// the toasts that say how a run ended, and the History menu's past runs.

import { useCallback, useEffect, useRef, useState } from "react";
import { durationLabel } from "./durations.js";
import { refusalDetails } from "../document/problems.js";
import { cancelRequested, fromRunDetails, fromStartedRun, isActive, runPhase } from "./runState.js";
import { useStore } from "../../../lib/store.js";
import { drawnDetails } from "../subpipelines/useRunInside.js";
import { beginMove } from "../overlay.js";
import { withTuning } from "./runOptions.js";

/**
 * `{phase, onRun, startRun, onCancel, loadRuns, pickRun, backToLive, tuning, setTuning}`.
 * `phase` is the live run's status, or "cancelling" from a cancel until the run has ended;
 * `tuning`: whether the runs started here use the figures of past runs (the Run menu's switch).
 */
export function useRunControls({
  api,
  base,
  overlay,
  sets,
  stateRef,
  saveFirst,
  showProblems,
  toasts,
  setDialog,
  openLogs,
}) {
  const phase = useStore(overlay, (value) => runPhase(value.live, sets));
  const cancelToast = useRef(null);
  const [tuning, setTuning] = useState(true);

  // Tell the user when a live run ends; the "Cancelling…" toast ends with it.
  const lastPhase = useRef(phase);
  useEffect(() => {
    const was = lastPhase.current;
    lastPhase.current = phase;
    if (!sets.runActive.has(was) && was !== "cancelling") return;
    if (isActive({ status: phase }, sets) || phase === "cancelling" || phase === "idle") return;
    if (cancelToast.current !== null) toasts.dismiss(cancelToast.current);
    cancelToast.current = null;
    const run = overlay.get().live;
    const took = run.durationS != null ? `: ${durationLabel("engine", run.durationS).text}` : "";
    toasts.show(`Run ${phase}${took}.`, { kind: phase === "succeeded" ? "success" : "error" });
  }, [phase, sets, overlay, toasts]);

  const startRun = useCallback(
    async (parameters, options = {}) => {
      setDialog(null);
      if (!(await saveFirst())) return;
      try {
        const run = await api.post(`${base}/runs`, withTuning({ parameters, ...options }, tuning));
        beginMove(overlay)((value) => ({
          ...value,
          viewed: null,
          inside: null,
          live: fromStartedRun(value.live, run),
        }));
        toasts.clear();
        openLogs();
      } catch (error) {
        if (error.body?.problems) showProblems(error.body.problems);
        if (error.body?.code === "pipeline_has_problems") {
          setDialog({ kind: "problems" }); // the list, with "Run anyway", as the Run button opens it
          return;
        }
        toasts.show(`The run did not start: ${error.message}`, {
          kind: "error",
          details: refusalDetails(error.body),
        });
      }
    },
    [api, base, overlay, saveFirst, showProblems, toasts, setDialog, openLogs, tuning],
  );

  // `options`: `{fresh}` to ignore stored results, `{up_to: node}` or `{from_node: node}` to
  // run part of the pipeline (runOptions.js names them for the user).
  const onRun = useCallback(
    (options = {}) => {
      const parameters = stateRef.current.history.present.meta.config?.parameters ?? {};
      const asked = withTuning(options, tuning);
      if (Object.keys(parameters).length) setDialog({ kind: "run", parameters, options: asked });
      else startRun({}, asked);
    },
    [stateRef, startRun, setDialog, tuning],
  );

  const onCancel = useCallback(async () => {
    const runId = overlay.get().live.runId;
    if (runId === null) return;
    try {
      await api.post(`/api/runs/${runId}/cancel`, {});
      overlay.set((value) => ({ ...value, live: cancelRequested(value.live, runId, sets) }));
      if (runPhase(overlay.get().live, sets) === "cancelling") {
        cancelToast.current = toasts.show(
          "Cancelling the run: the nodes running now finish first…",
          { timeout: 0 },
        );
      }
    } catch (error) {
      toasts.show(`Could not cancel: ${error.message}`, { kind: "error" });
    }
  }, [api, overlay, sets, toasts]);

  const loadRuns = useCallback(() => api.get(`${base}/runs?limit=30`), [api, base]);
  const pickRun = useCallback(
    async (run) => {
      const settle = beginMove(overlay);
      try {
        const details = await drawnDetails(api, await api.get(`/api/runs/${run.id}`));
        settle((value) => ({ ...value, viewed: fromRunDetails(details), inside: null }));
        openLogs();
      } catch (error) {
        toasts.show(`Could not load run #${run.number}: ${error.message}`, { kind: "error" });
      }
    },
    [api, overlay, toasts, openLogs],
  );
  const backToLive = useCallback(
    () => beginMove(overlay)((value) => ({ ...value, viewed: null, inside: null })),
    [overlay],
  );

  return { phase, onRun, startRun, onCancel, loadRuns, pickRun, backToLive, tuning, setTuning };
}
