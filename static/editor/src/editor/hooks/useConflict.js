// The ways out of a refused save (409: someone else saved first). None of them saves this
// version over theirs without the user saying so: "Reload theirs" takes their version with
// nothing to undo back to (an undo would bring this stale version back, and autosave would
// write it over theirs), "Keep mine as a copy" saves this version as a new pipeline first, and
// only "Overwrite with mine" replaces theirs.

import { useCallback } from "react";
import { canvasToDocument, copyName, documentToCanvas } from "../../model/document.js";

/** `{reloadTheirs, keepMineAsCopy, overwrite}` for the conflict dialog. */
export function useConflict({ api, base, catalog, workspace, stateRef, dispatch, resolve, sizeOf, onTaken, toasts }) {
  const takeTheirs = useCallback(async () => {
    const fresh = await api.get(base);
    await resolve("reload", fresh);
    dispatch({ type: "take", canvas: documentToCanvas(fresh, catalog.typeOf) });
    onTaken(fresh);
  }, [api, base, catalog, resolve, dispatch, onTaken]);

  const reloadTheirs = useCallback(async () => {
    try {
      await takeTheirs();
    } catch (error) {
      toasts.show(`Could not reload: ${error.message}`, { kind: "error" });
    }
  }, [takeTheirs, toasts]);

  const keepMineAsCopy = useCallback(async () => {
    const { meta, nodes, edges } = stateRef.current.history.present;
    const mine = { ...canvasToDocument(meta, nodes, edges, sizeOf), name: copyName(meta.name), workspace: workspace?.slug };
    try {
      const copy = await api.post("/api/pipelines", mine);
      await takeTheirs();
      toasts.show(`Your version is kept as a new pipeline, “${copy.name}”; this one shows theirs.`, {
        kind: "success",
        link: { href: `/pipelines/${copy.id}/`, label: "Open your copy" },
        timeout: 0,
      });
    } catch (error) {
      toasts.show(`Your version was not copied: ${error.message}`, { kind: "error" });
    }
  }, [api, workspace, stateRef, sizeOf, takeTheirs, toasts]);

  const overwrite = useCallback(() => resolve("overwrite"), [resolve]);
  return { reloadTheirs, keepMineAsCopy, overwrite };
}
