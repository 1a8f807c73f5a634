// The history of versions for the editor: the list (after saving what is unsaved, so that
// "now" is what the user sees), the two documents and the server's diff of a comparison, and
// restoring a version, which replaces the canvas as one undo step.

import { useCallback, useState } from "react";
import { documentToCanvas } from "../document/document.js";

const LISTED = 200;

/** `{viewing, load, pick, close, loadPair, restore}`; `viewing` is `{item, items}` or null. */
export function useVersions({
  api,
  base,
  catalog,
  saving,
  saveFirst,
  dispatch,
  onReplaced,
  toasts,
}) {
  const [viewing, setViewing] = useState(null);

  const load = useCallback(async () => {
    await saveFirst();
    return api.get(`${base}/revisions?limit=${LISTED}`);
  }, [api, base, saveFirst]);

  const loadPair = useCallback(
    async (older, newer) => {
      const [from, to, diff] = await Promise.all([
        api.get(`${base}/revisions/${older}`),
        api.get(`${base}/revisions/${newer}`),
        api.get(`${base}/diff?from=${older}&to=${newer}`),
      ]);
      return { older: from.document, newer: to.document, diff };
    },
    [api, base],
  );

  const restore = useCallback(
    async (revision) => {
      try {
        const saved = await saving.during(
          api.post(`${base}/revisions/${revision}/restore`, {
            revision: saving.revision.current,
          }),
        );
        saving.adopt(saved);
        dispatch({ type: "reload", canvas: documentToCanvas(saved, catalog.typeOf) });
        onReplaced(saved);
        setViewing(null);
        toasts.show(`Restored version #${revision}. Undo brings back what was there before.`);
        return true;
      } catch (error) {
        toasts.show(`Not restored: ${error.message}`, { kind: "error" });
        return false;
      }
    },
    [api, base, catalog, saving, dispatch, onReplaced, toasts],
  );

  const pick = useCallback((item, items) => setViewing({ item, items }), []);
  const close = useCallback(() => setViewing(null), []);
  return { viewing, load, pick, close, loadPair, restore };
}
