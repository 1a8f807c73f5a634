// The editor's keyboard shortcuts. They act on the canvas, not while the user types in a
// field or a dialog is open; a viewer keeps only those that change nothing.

import { useEffect } from "react";

function isTyping(target) {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))
  );
}

/** Listens while mounted; `actions` are `{save, undo, redo, copy, paste, remove, selectAll}`. */
export function useShortcuts(readOnly, { save, undo, redo, copy, paste, remove, selectAll }) {
  useEffect(() => {
    const onKey = (event) => {
      const mod = event.ctrlKey || event.metaKey;
      const key = event.key.toLowerCase();
      if (mod && key === "s") {
        event.preventDefault();
        if (!readOnly) save({ force: false });
        return;
      }
      if (isTyping(event.target) || document.querySelector(".pw-backdrop")) return;
      if (mod && key === "a") {
        event.preventDefault();
        selectAll();
      } else if (mod && key === "c") {
        copy();
      } else if (readOnly) {
        return;
      } else if (mod && key === "z") {
        event.preventDefault();
        if (event.shiftKey) redo();
        else undo();
      } else if (mod && key === "y") {
        event.preventDefault();
        redo();
      } else if (mod && key === "v") {
        event.preventDefault();
        paste();
      } else if (!mod && (event.key === "Delete" || event.key === "Backspace")) {
        event.preventDefault();
        remove();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [readOnly, save, undo, redo, copy, paste, remove, selectAll]);
}
