// The saving feature as the editor uses it: saves (useSaving.js) whose answers feed the
// analysis and the plan view, a failed save's toast and problems, "save first" before the
// server works on the pipeline, the choices of a conflict (useConflict.js), and the pipeline
// as a file (usePipelineFiles.js).

import { useReactFlow } from "@xyflow/react";
import { useCallback } from "react";
import { cardGeometry } from "../canvas/nodes/geometry.js";
import { FIT_VIEW } from "../canvas/viewport.js";
import { refusalDetails } from "../document/problems.js";
import { useConflict } from "./useConflict.js";
import { usePipelineFiles } from "./usePipelineFiles.js";
import { useSaveFirst, useSaving } from "./useSaving.js";

/**
 * `{saving, saveFirst, onReplaced, conflictChoices, files}` for the editor's state in
 * `editor` (`{state, stateRef, dispatch}`), with `analysis` (useAnalysis.js) and `planSaved()`
 * (the plan view's) told of every save. `onReplaced(saved)` is for a graph replaced by the
 * server's (an import, a restored version): analysed, then fitted into the view.
 */
export function useDocumentSaving({
  api,
  pipelineId,
  catalog,
  workspace,
  pipeline,
  editor,
  analysis,
  planSaved,
  readOnly,
  toasts,
}) {
  const base = `/api/pipelines/${pipelineId}`;
  const { state, stateRef, dispatch } = editor;
  const { analysed, analyseStored, showProblems } = analysis;
  const reactFlow = useReactFlow();
  /** A save's answer (or a replaced graph's): its analysis, and the plan view follows it. */
  const onSaved = useCallback(
    (answer) => {
      analysed(answer);
      planSaved();
    },
    [analysed, planSaved],
  );
  const onFailed = useCallback(
    (error) => {
      toasts.show(`Not saved: ${error.message}`, {
        kind: "error",
        details: refusalDetails(error.body),
      });
      if (error.body.problems) showProblems(error.body.problems);
    },
    [toasts, showProblems],
  );
  const sizeOf = useCallback((node) => cardGeometry(catalog.portsOf(node), false), [catalog]);
  const onMerged = useCallback(
    (merged) => {
      const names = merged.nodes.map((node) => node.label).join(", ");
      toasts.show(
        `Merged with ${merged.by}'s save${names ? `: their changes to ${names} are kept` : ""}.`,
        { kind: "success" },
      );
    },
    [toasts],
  );
  const saving = useSaving({
    api,
    pipelineId,
    state,
    stateRef,
    dispatch,
    initialRevision: pipeline.revision,
    initial: pipeline,
    onSaved,
    onFailed,
    onMerged,
    readOnly,
    sizeOf,
    typeOf: catalog.typeOf,
  });
  const saveFirst = useSaveFirst({ save: saving.save, stateRef, toasts });
  const onReplaced = useCallback(
    (saved) => {
      onSaved(saved);
      window.requestAnimationFrame(() => reactFlow.fitView({ ...FIT_VIEW, padding: 0.2 }));
    },
    [onSaved, reactFlow],
  );
  const onTaken = useCallback(
    (fresh) => {
      analyseStored(fresh);
      planSaved();
    },
    [analyseStored, planSaved],
  );
  const conflictChoices = useConflict({
    conflict: saving.conflict,
    api,
    base,
    catalog,
    workspace,
    stateRef,
    dispatch,
    resolve: saving.resolve,
    sizeOf,
    onTaken,
    toasts,
  });
  const files = usePipelineFiles({
    api,
    base,
    catalog,
    stateRef,
    dispatch,
    saving,
    saveFirst,
    onReplaced,
    toasts,
  });
  return { saving, saveFirst, onReplaced, onTaken, conflictChoices, files };
}
