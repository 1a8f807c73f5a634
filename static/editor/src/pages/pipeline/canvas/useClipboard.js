// Copy and paste of nodes, through localStorage so that a copy reaches another pipeline's tab.

import { useCallback } from "react";
import { boundsOf, boxesOf } from "../document/freeSpace.js";
import { copySelection, paste } from "../document/graph.js";

const CLIPBOARD_KEY = "pipewright.clipboard";

/**
 * `{copy, paste}`: Ctrl+C keeps the selection; Ctrl+V pastes it, kept in its shape, in the free
 * space nearest the middle of the view (`viewCenter()`, `freeSpot(center, size)`: useFreeSpot.js),
 * so that each paste lands in sight and on no card.
 */
export function useClipboard({ stateRef, commit, toasts, viewCenter, freeSpot, sizeOf }) {
  const copy = useCallback(() => {
    const present = stateRef.current.history.present;
    const clipboard = copySelection(present.nodes, present.edges);
    if (!clipboard) return;
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
    const bounds = boundsOf(boxesOf(clipboard.nodes, sizeOf));
    const spot = freeSpot(viewCenter(), bounds);
    const offset = { x: spot.x - bounds.x, y: spot.y - bounds.y };
    commit((now) => {
      const result = paste(now.nodes, now.edges, clipboard, offset);
      return { ...now, nodes: result.nodes, edges: result.edges };
    });
  }, [commit, freeSpot, sizeOf, viewCenter]);

  return { copy, paste: pasteClipboard };
}
