// Saving the pipeline: explicitly (button, Ctrl+S) and automatically 1.5 s after the last
// change. A stale save (409) stops autosave and waits for the user to reload or overwrite.
// A viewer's editor never saves (`readOnly`): nothing is sent, nothing autosaves.

import { useCallback, useEffect, useRef, useState } from "react";
import { canvasToDocument } from "../document/document.js";
import { isDirty } from "../document/editorState.js";

const AUTOSAVE_MS = 1500;

/**
 * `{save, phase, conflict, resolve, adopt, revision}`: `save()` resolves to true once the
 * server has the current graph; `phase` is "idle", "saving" or "failed"; `conflict` is
 * `{revision}` (the server's, after a 409) until the user reloads or overwrites. `sizeOf(node)`
 * (a card's size) makes each group's saved box its frame (document/document.js).
 */
export function useSaving({
  api,
  pipelineId,
  state,
  stateRef,
  dispatch,
  initialRevision,
  onSaved,
  onFailed,
  readOnly = false,
  sizeOf = null,
}) {
  const revision = useRef(initialRevision);
  const inFlight = useRef(null);
  const conflictRef = useRef(null);
  const [phase, setPhase] = useState("idle");
  const [conflict, setConflict] = useState(null);
  const url = `/api/pipelines/${pipelineId}`;

  const save = useCallback(
    async ({ force = false } = {}) => {
      while (inFlight.current) await inFlight.current;
      const current = stateRef.current;
      if (!isDirty(current) && !force) return true;
      if (readOnly) return false;
      if (conflictRef.current && !force) return false;
      const version = current.version;
      const { meta, nodes, edges } = current.history.present;
      const body = { ...canvasToDocument(meta, nodes, edges, sizeOf), revision: revision.current };
      setPhase("saving");
      const attempt = api.put(url, body).then(
        (saved) => {
          revision.current = saved.revision;
          dispatch({ type: "saved", version });
          setPhase("idle");
          onSaved(saved);
          return true;
        },
        (error) => {
          if (error.status === 409) {
            conflictRef.current = { revision: error.body.revision };
            setConflict(conflictRef.current);
          } else {
            onFailed(error);
          }
          setPhase("failed");
          return false;
        },
      );
      inFlight.current = attempt;
      try {
        return await attempt;
      } finally {
        inFlight.current = null;
      }
    },
    [api, url, stateRef, dispatch, onSaved, onFailed, readOnly, sizeOf],
  );

  const dirty = isDirty(state);
  useEffect(() => {
    if (!dirty || conflict || readOnly) return undefined;
    const timer = setTimeout(() => save(), AUTOSAVE_MS);
    return () => clearTimeout(timer);
  }, [dirty, state.version, state.savedVersion, conflict, readOnly, save]);

  useEffect(() => {
    if (!dirty) return undefined;
    const warn = (event) => {
      event.preventDefault();
      event.returnValue = "";
    };
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [dirty]);

  /** End a conflict: "overwrite" saves ours over theirs; "reload" takes the server's `pipeline`. */
  const resolve = useCallback(
    async (choice, pipeline) => {
      const seen = conflictRef.current;
      conflictRef.current = null;
      setConflict(null);
      if (choice === "overwrite") {
        revision.current = seen?.revision ?? revision.current;
        return save({ force: true });
      }
      revision.current = pipeline.revision;
      setPhase("idle");
      return true;
    },
    [save],
  );

  /** Adopt a revision the server answered with outside of `save` (an import). */
  const adopt = useCallback((saved) => {
    revision.current = saved.revision;
  }, []);

  return { save, phase, conflict, resolve, adopt, revision };
}

/** `saveFirst()`: saves when there are unsaved changes, and resolves to false (with a toast
 * saying why) when that did not work: the server previews, runs and exports what is saved. */
export function useSaveFirst({ save, stateRef, toasts }) {
  return useCallback(async () => {
    if (!isDirty(stateRef.current)) return true;
    const ok = await save();
    if (!ok)
      toasts.show("Save the pipeline first: the server works on the saved version.", {
        kind: "error",
      });
    return ok;
  }, [save, stateRef, toasts]);
}

/** The top bar's word for the save (`{label, title}`), from `saving`'s phase and conflict. */
export function saveStatus({ phase, conflict }, dirty) {
  const label = phase === "saving" ? "Saving…" : dirty || conflict ? "Unsaved" : "Saved";
  const title = conflict
    ? "Someone else saved meanwhile: reload theirs or keep yours as a copy"
    : phase === "failed"
      ? "The last save failed"
      : "";
  return { label, title };
}
