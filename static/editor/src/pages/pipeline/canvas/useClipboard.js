// Copy and paste of nodes, through localStorage so that a copy reaches another pipeline's tab.

import { useCallback, useRef } from "react";
import { copySelection, paste } from "../document/graph.js";

const CLIPBOARD_KEY = "pipewright.clipboard";

/** `{copy, paste}`: Ctrl+C keeps the selection; each Ctrl+V pastes it a little further off. */
export function useClipboard({ stateRef, commit, toasts }) {
  const pasteCount = useRef(0);

  const copy = useCallback(() => {
    const present = stateRef.current.history.present;
    const clipboard = copySelection(present.nodes, present.edges);
    if (!clipboard) return;
    pasteCount.current = 0;
    try {
      window.localStorage.setItem(CLIPBOARD_KEY, JSON.stringify(clipboard));
    } catch {
      // storage full or disabled: the copy is simply not kept
    }
    toasts.show(`Copied ${clipboard.nodes.length} node${clipboard.nodes.length === 1 ? "" : "s"}.`);
  }, [stateRef, toasts]);

  const pasteClipboard = useCallback(() => {
    let clipboard = null;
    try {
      clipboard = JSON.parse(window.localStorage.getItem(CLIPBOARD_KEY) ?? "null");
    } catch {
      clipboard = null;
    }
    if (!clipboard?.nodes?.length) return;
    pasteCount.current += 1;
    const shift = 40 * pasteCount.current;
    commit((now) => {
      const result = paste(now.nodes, now.edges, clipboard, { x: shift, y: shift * 2 });
      return { ...now, nodes: result.nodes, edges: result.edges };
    });
  }, [commit]);

  return { copy, paste: pasteClipboard };
}
