// Editing together in the editor: tells the others what this user selected, and follows the
// saves others make: with no unsaved change here their version is loaded at once; otherwise
// the top bar says "X saved a newer version" and the next save merges (saving/useSaving.js).
// A save of this user's (this tab's, or another's) is looked at once this tab's save in flight
// has its answer: the answer may be the very save announced.

import { useEffect } from "react";
import { useStore } from "../../../lib/store.js";
import { documentToCanvas } from "../document/document.js";
import { isDirty } from "../document/editorState.js";
import { keepSelection } from "../saving/useSaving.js";

/** `{people, newer}` for the top bar; `newer` is `{by, revision}` while one is not loaded. */
export function useTogether({
  together,
  api,
  base,
  catalog,
  saving,
  stateRef,
  dispatch,
  onTaken,
  selectedId,
  userName,
}) {
  useEffect(() => together.select(selectedId), [together, selectedId]);
  const saved = useStore(together, (state) => state.saved);
  const { settled, adopt, revision, conflict } = saving;
  useEffect(() => {
    if (!saved) return undefined;
    let stale = false;
    const later = (revisionNow) => saved.revision > revisionNow;
    const showNewer = () => together.set((state) => ({ ...state, newer: saved }));
    (async () => {
      if (saved.username === userName) await settled();
      else if (isDirty(stateRef.current)) showNewer();
      if (stale || conflict || !later(revision.current)) return;
      if (isDirty(stateRef.current)) return showNewer();
      const fresh = await api.get(base);
      if (stale || !later(revision.current)) return undefined;
      if (isDirty(stateRef.current)) return showNewer();
      adopt(fresh);
      const canvas = documentToCanvas(fresh, catalog.typeOf);
      dispatch({ type: "take", canvas: keepSelection(canvas, stateRef.current.history.present) });
      onTaken(fresh);
      together.set((state) => ({ ...state, newer: null }));
      return undefined;
    })().catch(() => showNewer());
    return () => {
      stale = true;
    };
  }, [
    saved,
    userName,
    together,
    api,
    base,
    catalog,
    settled,
    adopt,
    revision,
    conflict,
    stateRef,
    dispatch,
    onTaken,
  ]);
  const people = useStore(together, (state) => state.people);
  const newer = useStore(together, (state) => state.newer);
  const unseen = newer && !conflict && newer.revision > revision.current;
  return { people, newer: unseen ? newer : null };
}
