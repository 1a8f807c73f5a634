// The editor's keyboard shortcuts as one table: useShortcuts.js acts on the rows with an
// `action`, the shortcut sheet ("?", ShortcutSheet.jsx) lists every row. The rows without an
// action are keys the canvas (React Flow, the ports) handles itself; they are listed so that
// the sheet says everything the keyboard does.

/**
 * `keys`: each a "+"-joined combination; "Mod" is Ctrl (⌘ on a Mac). `whileTyping`: also
 * while the focus is in a field or a dialog is open; `edits`: not in a read-only editor;
 * `native`: the browser's own behaviour is kept (copying selected text); `mouse`: a gesture
 * (the side panel lists it with the keys).
 */
export const SHORTCUTS = [
  { action: "save", keys: ["Mod+S"], title: "Save", whileTyping: true, edits: true },
  { action: "undo", keys: ["Mod+Z"], title: "Undo", edits: true },
  { action: "redo", keys: ["Mod+Shift+Z", "Mod+Y"], title: "Redo", edits: true },
  { action: "selectAll", keys: ["Mod+A"], title: "Select all nodes" },
  { action: "copy", keys: ["Mod+C"], title: "Copy the selected nodes", native: true },
  { action: "paste", keys: ["Mod+V"], title: "Paste nodes", edits: true },
  { action: "remove", keys: ["Delete", "Backspace"], title: "Delete the selection", edits: true },
  { action: "help", keys: ["?"], title: "Show this list of shortcuts" },
  { keys: ["Shift+click", "Shift+drag"], title: "Select several nodes", mouse: true },
  { keys: ["Tab", "Shift+Tab"], title: "Go to the next or previous node or port" },
  { keys: ["Enter", "Space"], title: "On a node: select it" },
  { keys: ["Arrow keys"], title: "Move the selected nodes (one undo step)" },
  { keys: ["Shift+Arrow keys"], title: "Move the selected nodes four times as far" },
  { keys: ["Enter"], title: "On a port: list the ports it can connect to; Enter connects" },
  { keys: ["Escape"], title: "Close a list or dialog" },
];

const MODIFIERS = new Set(["Mod", "Shift", "Alt"]);

/** Whether `event` (a keydown) is the combination `spec` ("Mod+Shift+Z", "Delete", "?"). */
export function matches(spec, event) {
  const parts = spec.split("+");
  const key = parts.at(-1);
  const wants = new Set(parts.slice(0, -1).filter((part) => MODIFIERS.has(part)));
  const mod = event.ctrlKey || event.metaKey;
  if (mod !== wants.has("Mod") || Boolean(event.altKey) !== wants.has("Alt")) return false;
  // A letter's Shift is part of the combination; a sign's ("?") is how it is typed.
  const isLetter = /^[a-z]$/i.test(key);
  if (isLetter && Boolean(event.shiftKey) !== wants.has("Shift")) return false;
  return isLetter ? event.key.toLowerCase() === key.toLowerCase() : event.key === key;
}

/** The row of the table whose action `event` asks for, or null. */
export function shortcutFor(event) {
  return (
    SHORTCUTS.find((row) => row.action && row.keys.some((spec) => matches(spec, event))) ?? null
  );
}

/** A combination as the sheet shows it: "Ctrl+Shift+Z" (or "⌘+Shift+Z" on a Mac). */
export function keyLabel(spec, mac = false) {
  return spec.replace(/^Mod\b/, mac ? "⌘" : "Ctrl");
}
