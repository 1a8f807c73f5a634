// Notes and groups as React Flow nodes, drawn with the operators' nodes (groups under them,
// notes over the groups), and React Flow's changes to them turned into edits: a note moved or
// resized while the pointer is down is shown here and saved once it is let go; a group's
// frame dragged moves its nodes, through the same drag as the nodes' own (useNodeDrag.js).
// Like the operators' nodes, they are given their size (`measured`) rather than measured, and
// draw it themselves: their React Flow wrappers stay 0 × 0 (see editor.css).

import { useCallback, useMemo, useRef, useState } from "react";
import { useLatest } from "../../../lib/useLatest.js";
import { groupFrame, itemKey, itemOf, noteSize, shifted } from "../document/canvasItems.js";

const NO_ITEMS = [];
const NO_FRAMES = new Map();
const GROUP_STYLE = { pointerEvents: "none" }; // the frame's inside lets clicks through to the canvas
const measuredSize = (node) => node.measured;

/**
 * `{groupNodes, noteNodes, route(changes)}`: `shown` are the operators' nodes as React Flow
 * gets them (with `measured`); `route` takes React Flow's changes of notes and groups and
 * returns the node changes they make (a group's drag moves its nodes).
 */
export function useItemNodes({ items, notes = NO_ITEMS, groups = NO_ITEMS, shown }) {
  const [live, setLive] = useState(null); // {noteId: {position?, width?, height?}} while moved or resized
  const groupDrag = useRef(null); // {id, from: {x, y}, start: {nodeId: {x, y}}} while a frame is dragged
  const readOnly = items.readOnly;

  const frames = useMemo(() => {
    if (!groups.length) return NO_FRAMES;
    const byId = new Map(shown.map((node) => [node.id, node]));
    return new Map(groups.map((group) => [group.id, groupFrame(group, byId, measuredSize)]));
  }, [groups, shown]);
  const groupNodes = useGroupNodes(groups, frames, items.selected, readOnly);

  const noteNodes = useMemo(
    () =>
      notes.map((note) => {
        const key = itemKey("note", note.id);
        const shownNote = live?.[note.id] ? { ...note, ...live[note.id] } : note;
        const size = noteSize(shownNote);
        return {
          id: key,
          type: "canvasNote",
          position: shownNote.position,
          measured: size,
          data: { note: shownNote },
          selected: items.selected.has(key),
          draggable: !readOnly,
          connectable: false,
          ariaLabel: `Note: ${note.text.split("\n")[0].slice(0, 80) || "empty"}`,
        };
      }),
    [notes, live, items.selected, readOnly],
  );

  // `route` reads the latest of these, so that React Flow keeps one `onNodesChange` through a
  // drag (a new one each frame would be handed to its store each frame).
  const latest = useLatest({ items, notes, groups, frames, shown });
  const route = useCallback(
    (changes) => {
      const {
        items: now,
        notes: noteList,
        groups: groupList,
        frames: frameOf,
        shown: shownNodes,
      } = latest.current;
      const nodeChanges = [];
      const selects = changes.filter((change) => change.type === "select");
      if (selects.length) now.onSelect(selects);
      if (now.readOnly) return nodeChanges;
      for (const change of changes) {
        const item = itemOf(change.id);
        if (!item) continue;
        if (item.kind === "note") routeNote(item.id, change, noteList, setLive, now.editNote);
        else if (change.type === "position" && change.position)
          nodeChanges.push(
            ...routeGroup(
              item.id,
              change,
              groupList,
              frameOf,
              shownNodes,
              groupDrag,
              now.editGroupBox,
            ),
          );
      }
      return nodeChanges;
    },
    [latest],
  );

  return { groupNodes, noteNodes, route };
}

/** A note's move or resize: shown live while the pointer is down, saved when it is let go. */
function routeNote(id, change, notes, setLive, editNote) {
  const note = notes.find((candidate) => candidate.id === id);
  if (!note) return;
  if (change.type === "position" && change.position) {
    const position = { x: Math.round(change.position.x), y: Math.round(change.position.y) };
    if (change.dragging) {
      setLive((old) => ({ ...old, [id]: { ...old?.[id], position } }));
    } else {
      setLive(null);
      editNote(id, { position }, change.dragging === false ? null : `nudge.note.${id}`);
    }
  } else if (
    change.type === "dimensions" &&
    typeof change.resizing === "boolean" &&
    change.dimensions
  ) {
    const size = {
      width: Math.round(change.dimensions.width),
      height: Math.round(change.dimensions.height),
    };
    if (change.resizing) {
      setLive((old) => ({ ...old, [id]: { ...old?.[id], ...size } }));
    } else {
      setLive(null);
      editNote(id, size);
    }
  }
}

/**
 * The position changes of a group's nodes for a drag (or an arrow key) of its frame; a group
 * with none of its nodes on the canvas moves its own box (`editGroupBox`).
 */
function routeGroup(id, change, groups, frames, shown, groupDrag, editGroupBox) {
  const group = groups.find((candidate) => candidate.id === id);
  const frame = frames.get(id);
  if (!group || !frame) return [];
  const byId = new Map(shown.map((node) => [node.id, node]));
  const members = group.nodes.filter((nodeId) => byId.has(nodeId));
  if (!members.length) {
    if (!change.dragging)
      editGroupBox(id, { x: Math.round(change.position.x), y: Math.round(change.position.y) });
    return [];
  }
  if (groupDrag.current?.id !== id) {
    groupDrag.current = {
      id,
      from: { x: frame.x, y: frame.y },
      start: Object.fromEntries(members.map((nodeId) => [nodeId, byId.get(nodeId).position])),
    };
  }
  const { from, start } = groupDrag.current;
  const delta = {
    x: Math.round(change.position.x - from.x),
    y: Math.round(change.position.y - from.y),
  };
  if (!change.dragging) groupDrag.current = null;
  return Object.entries(shifted(start, delta)).map(([nodeId, position]) => ({
    id: nodeId,
    type: "position",
    position,
    dragging: change.dragging,
  }));
}

/**
 * The groups' React Flow nodes, each kept while its group, frame and selection stay the same:
 * React Flow redraws only the nodes whose objects change, and a drag changes every frame.
 */
function useGroupNodes(groups, frames, selected, readOnly) {
  // The nodes of the last call, by group id: kept across renders, refilled by each call.
  const [last] = useState(() => new Map());
  return useMemo(() => {
    const next = new Map();
    const nodes = groups.map((group) => {
      const frame = frames.get(group.id);
      const key = itemKey("group", group.id);
      const before = last.get(group.id);
      const same =
        before?.data.group === group &&
        before.selected === selected.has(key) &&
        before.draggable === !readOnly &&
        before.position.x === frame.x &&
        before.position.y === frame.y &&
        before.measured.width === frame.width &&
        before.measured.height === frame.height;
      const node = same
        ? before
        : {
            id: key,
            type: "canvasGroup",
            position: { x: frame.x, y: frame.y },
            measured: { width: frame.width, height: frame.height },
            data: { group, size: { width: frame.width, height: frame.height } },
            selected: selected.has(key),
            dragHandle: ".pw-group-head",
            draggable: !readOnly,
            connectable: false,
            zIndex: -1000,
            style: GROUP_STYLE,
            ariaLabel: `Group ${group.label || group.id}`,
          };
      next.set(group.id, node);
      return node;
    });
    last.clear();
    for (const [id, node] of next) last.set(id, node);
    return nodes;
  }, [groups, frames, selected, readOnly, last]);
}
