// The editor's graph state as a reducer: the canvas `{meta, nodes, edges}` under undo/redo,
// plus a change counter (`version`) and the version last saved, which give "Unsaved".

import { applyEdgeChanges, applyNodeChanges } from "@xyflow/react";
import { createHistory, record, recordFrom, redo, replace, undo } from "../history.js";
import { positionsDiffer } from "../graph.js";

/** The state for a canvas just loaded from the server (saved, nothing to undo). */
export function initialEditorState(canvas) {
  return { history: createHistory(canvas), version: 0, savedVersion: 0 };
}

/** Whether there are changes the server does not have. */
export const isDirty = (state) => state.version !== state.savedVersion;

/**
 * Actions: `nodesChange` / `edgesChange` (React Flow's changes: selection, sizes, dragging;
 * no undo step), `commit` (`update(present)` as one undo step, merged while `key` repeats),
 * `dragEnd` (one undo step from `before`, if anything moved), `undo`, `redo`, `saved`
 * (`version` is on the server), `reload` (the server's canvas, as an undo step, saved).
 */
export function editorReducer(state, action) {
  const present = state.history.present;
  switch (action.type) {
    case "nodesChange":
      return withHistory(state, replace(state.history, { ...present, nodes: applyNodeChanges(action.changes, present.nodes) }), false);
    case "edgesChange":
      return withHistory(state, replace(state.history, { ...present, edges: applyEdgeChanges(action.changes, present.edges) }), false);
    case "commit": {
      const next = action.update(present);
      if (!next || next === present) return state;
      return withHistory(state, record(state.history, next, action.key ?? null), true);
    }
    case "dragEnd":
      if (!positionsDiffer(action.before.nodes, present.nodes)) return state;
      return withHistory(state, recordFrom(state.history, action.before), true);
    case "undo":
      return withHistory(state, undo(state.history), true);
    case "redo":
      return withHistory(state, redo(state.history), true);
    case "saved":
      return { ...state, savedVersion: action.version };
    case "reload": {
      const history = record(state.history, action.canvas);
      return { history, version: state.version + 1, savedVersion: state.version + 1 };
    }
    default:
      throw new Error(`unknown editor action ${action.type}`);
  }
}

function withHistory(state, history, counts) {
  if (history === state.history) return state;
  return { ...state, history, version: counts ? state.version + 1 : state.version };
}
