// The editor's keyboard shortcuts (the table is shortcuts.js). They act on the canvas, not
// while the user types in a field or a dialog is open (except Save); a viewer keeps only
// those that change nothing.

import { useEffect } from "react";
import { useLatest } from "../../lib/useLatest.js";
import { shortcutFor } from "./shortcuts.js";

function isTyping(target) {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))
  );
}

/** Listens while mounted; `actions` has a function for each `action` of the table
 * (`{save, undo, redo, copy, paste, remove, selectAll, help}`). */
export function useShortcuts(readOnly, actions) {
  const latest = useLatest(actions); // a new object at each render: the listener stays
  useEffect(() => {
    const onKey = (event) => {
      const row = shortcutFor(event);
      if (!row) return;
      const blocked = isTyping(event.target) || document.querySelector(".pw-backdrop");
      if (blocked && !row.whileTyping) return;
      if (!row.native) event.preventDefault();
      if (readOnly && row.edits) return;
      if (row.action === "save") latest.current.save({ force: false });
      else latest.current[row.action]?.();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [readOnly, latest]);
}
