// Sticky notes and groups: which are selected, which note is being written, and the edits
// (each one undo step) that the canvas, its tools and the shortcuts make. The notes and groups
// themselves live in the document's `meta` (document/canvasItems.js says how).

import { useCallback, useEffect, useMemo, useState } from "react";
import {
  deleteItems,
  groupNodes,
  itemKey,
  itemOf,
  newNote,
  renameGroup,
  updateNote,
  withoutNodes,
  NOTE_SIZE,
} from "../document/canvasItems.js";

const NONE = new Set();

function isTyping(target) {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))
  );
}

/**
 * `{selected, editing, onSelect(changes), addNote(), setEditing(id), editNote(id, patch),
 * group(), removeFromGroups(), ungroup(id), rename(id, label), editGroupBox(id, position),
 * withoutSelected(meta, deleted), readOnly}`.
 * `meta` is the present one; `center()` gives the middle of the view in flow coordinates,
 * `freeSpot(center, size)` the free place nearest it (canvas/useFreeSpot.js); Ctrl+G groups the selected
 * nodes, Ctrl+Shift+G takes them out of their groups.
 */
export function useCanvasItems({ meta, stateRef, commit, center, freeSpot, toasts, readOnly }) {
  const [selected, setSelected] = useState(NONE);
  const [editing, setEditing] = useState(null);

  /** React Flow's select changes of notes and groups (the others are the nodes'). */
  const onSelect = useCallback((changes) => {
    setSelected((old) => {
      const next = new Set(old);
      for (const change of changes) {
        if (change.selected) next.add(change.id);
        else next.delete(change.id);
      }
      return next.size === old.size && [...next].every((key) => old.has(key)) ? old : next;
    });
  }, []);

  const editMeta = useCallback(
    (update, key) => commit((now) => ({ ...now, meta: update(now.meta) }), key),
    [commit],
  );

  /** A new note in the free space nearest the middle of the view, open for writing. */
  const addNote = useCallback(() => {
    const present = stateRef.current.history.present;
    const spot = freeSpot(center(), NOTE_SIZE);
    const note = newNote(present.meta.notes ?? [], spot);
    editMeta((meta) => ({ ...meta, notes: [...(meta.notes ?? []), note] }));
    setSelected(new Set([itemKey("note", note.id)]));
    setEditing(note.id);
  }, [center, freeSpot, stateRef, editMeta]);

  const editNote = useCallback(
    (id, patch, key) =>
      editMeta((meta) => ({ ...meta, notes: updateNote(meta.notes ?? [], id, patch) }), key),
    [editMeta],
  );

  const selectedNodeIds = useCallback(
    () =>
      stateRef.current.history.present.nodes.filter((node) => node.selected).map((node) => node.id),
    [stateRef],
  );

  const group = useCallback(() => {
    const ids = selectedNodeIds();
    if (!ids.length) {
      toasts.show(
        "Select the nodes to group first (click, Shift+click or drag a box around them).",
      );
      return;
    }
    const { groups, id } = groupNodes(stateRef.current.history.present.meta.groups ?? [], ids);
    editMeta((meta) => ({ ...meta, groups }));
    setSelected(new Set([itemKey("group", id)]));
  }, [selectedNodeIds, stateRef, editMeta, toasts]);

  const removeFromGroups = useCallback(() => {
    const ids = selectedNodeIds();
    editMeta((meta) => {
      const groups = withoutNodes(meta.groups ?? [], ids);
      return groups === meta.groups ? meta : { ...meta, groups };
    });
  }, [selectedNodeIds, editMeta]);

  const ungroup = useCallback(
    (id) =>
      editMeta((meta) => ({
        ...meta,
        groups: (meta.groups ?? []).filter((group) => group.id !== id),
      })),
    [editMeta],
  );
  const editGroupBox = useCallback(
    (id, position) =>
      editMeta((meta) => ({
        ...meta,
        groups: (meta.groups ?? []).map((group) =>
          group.id === id ? { ...group, position } : group,
        ),
      })),
    [editMeta],
  );
  const rename = useCallback(
    (id, label) =>
      editMeta((meta) => ({ ...meta, groups: renameGroup(meta.groups ?? [], id, label) })),
    [editMeta],
  );

  /** `meta` without the selected notes and groups, and without `deleted` node ids in groups. */
  const withoutSelected = useCallback(
    (meta, deleted) => deleteItems(meta, selected, deleted),
    [selected],
  );

  useEffect(() => {
    if (readOnly) return undefined;
    const onKey = (event) => {
      if (!(event.ctrlKey || event.metaKey) || event.key.toLowerCase() !== "g") return;
      if (isTyping(event.target) || document.querySelector(".pw-backdrop")) return;
      event.preventDefault();
      if (event.shiftKey) removeFromGroups();
      else group();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [readOnly, group, removeFromGroups]);

  const shownSelection = useShown(selected, meta);
  return useMemo(
    () => ({
      selected: shownSelection,
      editing,
      onSelect,
      addNote,
      setEditing,
      editNote,
      group,
      removeFromGroups,
      ungroup,
      rename,
      editGroupBox,
      withoutSelected,
      readOnly,
    }),
    [
      shownSelection,
      editing,
      onSelect,
      addNote,
      editNote,
      group,
      removeFromGroups,
      ungroup,
      rename,
      editGroupBox,
      withoutSelected,
      readOnly,
    ],
  );
}

/** The selected keys whose notes and groups are still there (undo may take one away). */
function useShown(selected, meta) {
  return useMemo(() => {
    if (!selected.size) return selected;
    const present = new Set([
      ...(meta.notes ?? []).map((note) => itemKey("note", note.id)),
      ...(meta.groups ?? []).map((group) => itemKey("group", group.id)),
    ]);
    const kept = [...selected].filter((key) => itemOf(key) && present.has(key));
    return kept.length === selected.size ? selected : new Set(kept);
  }, [selected, meta]);
}
