// The ways out of a refused save (409: someone else saved first and changed what this user
// changed). None of them saves this version over theirs without the user saying so: "Take
// theirs" takes their version with
// nothing to undo back to (an undo would bring this stale version back, and autosave would
// write it over theirs), "Keep mine as a copy" saves this version as a new pipeline first, and
// only "Overwrite with mine" replaces theirs. "Show what differs" asks the server what this
// version changes in theirs (`POST …/diff`), saving nothing. The dialog names who saved and
// shows the conflicting fields of theirs and mine side by side (`rows`).

import { useCallback, useMemo, useState } from "react";
import { canvasToDocument, copyName, documentToCanvas } from "../document/document.js";
import { conflictRows } from "./conflictRows.js";

/** `{reloadTheirs, keepMineAsCopy, overwrite, showDifferences, differences, who, rows}` for
 * the conflict dialog; `differences` is the server's summary of what this version changes,
 * once asked; `conflict` is the refusal (useSaving.js). */
export function useConflict({
  conflict,
  api,
  base,
  catalog,
  workspace,
  stateRef,
  dispatch,
  resolve,
  sizeOf,
  onTaken,
  toasts,
}) {
  const [differences, setDifferences] = useState(null);
  const mine = useCallback(() => {
    const { meta, nodes, edges } = stateRef.current.history.present;
    return canvasToDocument(meta, nodes, edges, sizeOf);
  }, [stateRef, sizeOf]);

  const takeTheirs = useCallback(async () => {
    const fresh = await api.get(base);
    await resolve("reload", fresh);
    dispatch({ type: "take", canvas: documentToCanvas(fresh, catalog.typeOf) });
    setDifferences(null);
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
    const document = mine();
    try {
      const copy = await api.post("/api/pipelines", {
        ...document,
        name: copyName(document.name),
        workspace: workspace?.slug,
      });
      await takeTheirs();
      toasts.show(
        `Your version is kept as a new pipeline, “${copy.name}”; this one shows theirs.`,
        {
          kind: "success",
          link: { href: `/pipelines/${copy.id}/`, label: "Open your copy" },
          timeout: 0,
        },
      );
    } catch (error) {
      toasts.show(`Your version was not copied: ${error.message}`, { kind: "error" });
    }
  }, [api, workspace, mine, takeTheirs, toasts]);

  const showDifferences = useCallback(async () => {
    try {
      setDifferences((await api.post(`${base}/diff`, mine())).summary);
    } catch (error) {
      toasts.show(`Could not compare: ${error.message}`, { kind: "error" });
    }
  }, [api, base, mine, toasts]);

  const overwrite = useCallback(() => {
    setDifferences(null);
    return resolve("overwrite");
  }, [resolve]);
  const rows = useMemo(
    () => (conflict ? conflictRows(conflict.conflicts, conflict.theirs, conflict.mine) : []),
    [conflict],
  );
  const who = conflict?.saved_by ?? "Someone else";
  return { reloadTheirs, keepMineAsCopy, overwrite, showDifferences, differences, who, rows };
}
