// Saving the pipeline: explicitly (button, Ctrl+S) and automatically 1.5 s after the last
// change. A stale save (409: someone saved meanwhile) is sent again with the document it
// started from (`base`), and the server merges the two when they changed different things;
// a real conflict stops autosave and waits for the user to choose (useConflict.js).
// A viewer's editor never saves (`readOnly`): nothing is sent, nothing autosaves.

import { useCallback, useEffect, useRef, useState } from "react";
import { canvasToDocument, documentToCanvas } from "../document/document.js";
import { isDirty } from "../document/editorState.js";

const AUTOSAVE_MS = 1500;
const DOCUMENT_KEYS = ["format", "version", "name", "description", "config", "nodes", "edges"];

/** `canvas` (documentToCanvas's) with the nodes selected in `present` still selected: a
 * version loaded under the user's hands keeps the node they were editing open. */
export function keepSelection(canvas, present) {
  const selected = new Set(present.nodes.filter((node) => node.selected).map((node) => node.id));
  if (!selected.size) return canvas;
  const nodes = canvas.nodes.map((node) =>
    selected.has(node.id) ? { ...node, selected: true } : node,
  );
  return { ...canvas, nodes };
}

/** The document part of a pipeline as the API answers it (no id, revision, problems…). */
export function documentOf(answer) {
  const document = Object.fromEntries(
    DOCUMENT_KEYS.filter((key) => key in answer).map((key) => [key, answer[key]]),
  );
  return { ...document, notes: answer.notes ?? [], groups: answer.groups ?? [] };
}

/**
 * `{save, phase, conflict, resolve, adopt, revision, base, settled, during}`: `save()` resolves to true
 * once the server has the current graph; `phase` is "idle", "saving" or "failed"; `conflict`
 * is the refusal's `{revision, saved_by, conflicts, theirs}` (and the refused document, `mine`)
 * until the user chooses. `base`
 * holds the document of `revision`; `settled()` waits for a save in flight, and for the
 * other writes passed through `during(promise)`. A merged save's
 * document replaces the canvas (when nothing changed meanwhile) and `onMerged(merged)` says
 * what came from the other save. `sizeOf(node)` (a card's size) makes each group's saved box
 * its frame (document/document.js); `typeOf` is the catalog's.
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
  onMerged = () => {},
  readOnly = false,
  sizeOf = null,
  typeOf = null,
  initial = null,
}) {
  const revision = useRef(initialRevision);
  const base = useRef(initial ? documentOf(initial) : null);
  const inFlight = useRef(null);
  const writes = useRef(new Set());
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
      const started = base.current;
      const merging = (error) => {
        if (error.status !== 409 || force || !started || error.body?.conflicts) throw error;
        return api.put(url, { ...body, base: started });
      };
      const attempt = api
        .put(url, body)
        .catch(merging)
        .then(
          (saved) => {
            if (!saved.merged) {
              revision.current = saved.revision;
              base.current = documentOf(saved);
              dispatch({ type: "saved", version });
            } else if (stateRef.current.version === version) {
              revision.current = saved.revision;
              base.current = documentOf(saved);
              const canvas = documentToCanvas(saved, typeOf);
              const present = stateRef.current.history.present;
              dispatch({ type: "take", canvas: keepSelection(canvas, present) });
            } // else: edited meanwhile; the next save merges again from the same base
            setPhase("idle");
            onSaved(saved);
            if (saved.merged) onMerged(saved.merged);
            return true;
          },
          (error) => {
            if (error.status === 409) {
              conflictRef.current = { ...error.body, mine: body };
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
    [api, url, stateRef, dispatch, onSaved, onFailed, onMerged, readOnly, sizeOf, typeOf],
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
      base.current = documentOf(pipeline);
      setPhase("idle");
      return true;
    },
    [save],
  );

  /** Adopt a revision the server answered with outside of `save` (an import, a live load). */
  const adopt = useCallback((saved) => {
    revision.current = saved.revision;
    base.current = documentOf(saved);
  }, []);

  /** `promise`, a write other than a save (a restore, an import), counted by `settled`. */
  const during = useCallback((promise) => {
    writes.current.add(promise);
    const done = () => writes.current.delete(promise);
    promise.then(done, done);
    return promise;
  }, []);

  const settled = useCallback(async () => {
    while (inFlight.current || writes.current.size) {
      await Promise.allSettled([inFlight.current, ...writes.current]);
    }
  }, []);

  return { save, phase, conflict, resolve, adopt, revision, base, settled, during };
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
    ? `${conflict.saved_by ?? "Someone else"} saved meanwhile: take theirs or keep yours as a copy`
    : phase === "failed"
      ? "The last save failed"
      : "";
  return { label, title };
}
