// Sticky notes and groups, as the document has them (`meta.notes`, `meta.groups`: see
// runtime/spec.py Note and Group). They only arrange the canvas: the runtime never reads them.
// Every function is pure and returns new arrays.
//
// A group's frame is computed from its nodes' cards, so it follows them wherever they are
// moved; membership changes only when the user says so (group, remove from group, ungroup) or
// a node is deleted. A node is in one group at most; a group that loses its last node is gone
// (one stored without nodes keeps its own box, so that it can be seen and deleted).

import { uniqueNodeId } from "./graph.js";

export const NOTE_SIZE = { width: 240, height: 140 };
export const NOTE_COLORS = ["yellow", "blue", "green", "pink", "grey"]; // runtime/spec.py NoteColor
export const NOTE_MIN = { width: 120, height: 60 };
const FRAME_PAD = 20;
export const FRAME_HEAD = 32; // the label bar above the framed cards
const MAX_SIZE = 100_000; // runtime/spec.py MAX_SIZE

/** A new empty note, its top left corner at `position`, with an id no note has. */
export function newNote(notes, position) {
  const id = uniqueNodeId(
    "note",
    notes.map((note) => note.id),
  );
  return {
    id,
    text: "",
    position: rounded(position),
    width: NOTE_SIZE.width,
    height: NOTE_SIZE.height,
    color: NOTE_COLORS[0],
  };
}

/** `notes` with note `id` changed by `patch` (text, position, width, height). */
export function updateNote(notes, id, patch) {
  return notes.map((note) => (note.id === id ? { ...note, ...patch } : note));
}

/** A note's size on the canvas: its own, or the default for a side it leaves open. */
export function noteSize(note) {
  return { width: note.width ?? NOTE_SIZE.width, height: note.height ?? NOTE_SIZE.height };
}

/**
 * `groups` with a new group of `nodeIds` (taken out of the groups they were in), labelled
 * `Group <n>`, as `{groups, id}`; `{groups}` unchanged when there is no node to group.
 */
export function groupNodes(groups, nodeIds) {
  if (!nodeIds.length) return { groups };
  const id = uniqueNodeId(
    "group",
    groups.map((group) => group.id),
  );
  const label = `Group ${id.slice("group_".length)}`;
  const group = {
    id,
    label,
    position: { x: 0, y: 0 },
    width: 400,
    height: 300,
    nodes: [...nodeIds],
  };
  return { groups: [...withoutNodes(groups, nodeIds), group], id };
}

/** `groups` without `nodeIds` as members; the groups this leaves with no node are removed. */
export function withoutNodes(groups, nodeIds) {
  const leaving = new Set(nodeIds);
  const touched = (group) => group.nodes.some((id) => leaving.has(id));
  if (!groups.some(touched)) return groups;
  const next = [];
  for (const group of groups) {
    const nodes = touched(group) ? group.nodes.filter((id) => !leaving.has(id)) : group.nodes;
    if (nodes.length) next.push(nodes === group.nodes ? group : { ...group, nodes });
  }
  return next;
}

/** `groups` with group `id` renamed. */
export function renameGroup(groups, id, label) {
  return groups.map((group) => (group.id === id ? { ...group, label } : group));
}

/**
 * The frame `{x, y, width, height}` around a group's nodes (`byId`: id → node with a
 * `position`; `sizeOf(node)` its card's `{width, height}`), with room for the label above
 * them; the group's own box when none of its nodes is on the canvas.
 */
export function groupFrame(group, byId, sizeOf) {
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const id of group.nodes) {
    const node = byId.get(id);
    if (!node) continue;
    const { width, height } = sizeOf(node);
    left = Math.min(left, node.position.x);
    top = Math.min(top, node.position.y);
    right = Math.max(right, node.position.x + width);
    bottom = Math.max(bottom, node.position.y + height);
  }
  if (left === Infinity)
    return { x: group.position.x, y: group.position.y, width: group.width, height: group.height };
  return {
    x: left - FRAME_PAD,
    y: top - FRAME_PAD - FRAME_HEAD,
    width: right - left + 2 * FRAME_PAD,
    height: bottom - top + 2 * FRAME_PAD + FRAME_HEAD,
  };
}

/** `groups` with each one's box made its frame around `nodes`, as the document stores it. */
export function framedGroups(groups, nodes, sizeOf) {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  return groups.map((group) => {
    const frame = groupFrame(group, byId, sizeOf);
    return {
      ...group,
      position: rounded(frame),
      width: Math.min(MAX_SIZE, Math.round(frame.width)),
      height: Math.min(MAX_SIZE, Math.round(frame.height)),
    };
  });
}

/**
 * The positions (`{id: {x, y}}`) of a group's nodes when its frame is dragged by `delta`
 * from where they were (`start`: `{id: {x, y}}`).
 */
export function shifted(start, delta) {
  return Object.fromEntries(
    Object.entries(start).map(([id, at]) => [id, { x: at.x + delta.x, y: at.y + delta.y }]),
  );
}

function rounded({ x, y }) {
  return { x: Math.round(x), y: Math.round(y) };
}

/** The React Flow id of a note or a group: node ids cannot hold ":", so none is taken twice. */
export const itemKey = (kind, id) => `${kind}:${id}`;

/** `{kind: "note" | "group", id}` of a React Flow id made by `itemKey`, else null. */
export function itemOf(key) {
  const at = key.indexOf(":");
  if (at < 0) return null;
  const kind = key.slice(0, at);
  return kind === "note" || kind === "group" ? { kind, id: key.slice(at + 1) } : null;
}

/**
 * `meta` without the notes and groups whose keys are in `selected` (a Set) and with the
 * `deleted` node ids out of their groups; the same object when nothing changes.
 */
export function deleteItems(meta, selected, deleted) {
  const notes = meta.notes ?? [];
  const groups = meta.groups ?? [];
  const keptNotes = notes.filter((note) => !selected.has(itemKey("note", note.id)));
  const chosen = groups.filter((group) => !selected.has(itemKey("group", group.id)));
  const keptGroups = withoutNodes(chosen.length === groups.length ? groups : chosen, deleted);
  if (keptNotes.length === notes.length && keptGroups === groups) return meta;
  return { ...meta, notes: keptNotes, groups: keptGroups };
}
