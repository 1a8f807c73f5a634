// The editor's graph state as a reducer: the canvas `{meta, nodes, edges}` under undo/redo,
// plus a change counter (`version`) and the version last saved, which give "Unsaved".

import { applyEdgeChanges, applyNodeChanges } from "@xyflow/react";
import { applyPositions } from "./graph.js";
import { amend, createHistory, record, redo, replace, undo } from "./history.js";

/** The state for a canvas just loaded from the server (saved, nothing to undo). */
export function initialEditorState(canvas) {
  return { history: createHistory(canvas), version: 0, savedVersion: 0 };
}

/** Whether there are changes the server does not have. */
export const isDirty = (state) => state.version !== state.savedVersion;

/**
 * Actions: `nodesChange` / `edgesChange` (React Flow's changes: selection, sizes; no undo
 * step), `commit` (`update(present)` as one undo step, merged while `key` repeats, or with
 * `amend` part of the last step), `move`
 * (nodes to `positions` ({id: {x, y}}) as a commit, none when nothing moves), `undo`,
 * `redo`, `saved` (`version` is on the server), `reload` (the server's canvas, as an undo
 * step, saved), `take` (the server's canvas, saved, with nothing to undo: after a conflict,
 * an undo would bring back the stale version, which autosave would write over theirs).
 */
export function editorReducer(state, action) {
  const present = state.history.present;
  switch (action.type) {
    case "nodesChange":
      return withHistory(
        state,
        replace(state.history, {
          ...present,
          nodes: applyNodeChanges(action.changes, present.nodes),
        }),
        false,
      );
    case "edgesChange":
      return withHistory(
        state,
        replace(state.history, {
          ...present,
          edges: applyEdgeChanges(action.changes, present.edges),
        }),
        false,
      );
    case "commit": {
      const next = action.update(present);
      if (!next || next === present) return state;
      const history = action.amend
        ? amend(state.history, next)
        : record(state.history, next, action.key ?? null);
      return withHistory(state, history, true);
    }
    case "move": {
      const nodes = applyPositions(present.nodes, action.positions);
      if (nodes === present.nodes) return state;
      return withHistory(
        state,
        record(state.history, { ...present, nodes }, action.key ?? null),
        true,
      );
    }
    case "undo":
      return withHistory(state, undo(state.history), true);
    case "redo":
      return withHistory(state, redo(state.history), true);
    case "saved":
      return { ...state, savedVersion: action.version };
    case "take":
      return {
        history: createHistory(action.canvas),
        version: state.version + 1,
        savedVersion: state.version + 1,
      };
    case "reload": {
      const history = record(state.history, action.canvas);
      return { history, version: state.version + 1, savedVersion: state.version + 1 };
    }
    default:
      throw new Error(`unknown editor action ${action.type}`);
  }
}

// What a viewer's editor still does: select, and take what the server has. Edits, moves,
// undo and redo change nothing (the server would refuse to save them anyway).
const VIEWING_ACTIONS = new Set(["nodesChange", "edgesChange", "saved", "reload"]);

/** `editorReducer` for a viewer: the graph cannot be changed, only looked at. */
export function viewerReducer(state, action) {
  return VIEWING_ACTIONS.has(action.type) ? editorReducer(state, action) : state;
}

function withHistory(state, history, counts) {
  if (history === state.history) return state;
  return { ...state, history, version: counts ? state.version + 1 : state.version };
}
