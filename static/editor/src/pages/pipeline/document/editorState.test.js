import { describe, expect, it } from "vitest";
import { editorReducer, initialEditorState, isDirty, viewerReducer } from "./editorState.js";

const canvas = {
  meta: { name: "p" },
  nodes: [
    { id: "a", type: "t", position: { x: 0, y: 0 }, data: { operator: "filter", params: {} } },
  ],
  edges: [],
};

describe("the editor's state", () => {
  it("is saved when loaded, unsaved after a change, saved once the server has that version", () => {
    let state = initialEditorState(canvas);
    expect(isDirty(state)).toBe(false);
    state = editorReducer(state, {
      type: "commit",
      update: (present) => ({ ...present, meta: { name: "q" } }),
    });
    expect(isDirty(state)).toBe(true);
    state = editorReducer(state, { type: "saved", version: state.version });
    expect(isDirty(state)).toBe(false);
  });

  it("does not count selection changes as edits", () => {
    let state = initialEditorState(canvas);
    state = editorReducer(state, {
      type: "nodesChange",
      changes: [{ id: "a", type: "select", selected: true }],
    });
    expect(state.history.present.nodes[0].selected).toBe(true);
    expect(isDirty(state)).toBe(false);
  });

  it("makes a move one undo step, and none when nothing moved", () => {
    const move = (position) => ({ type: "move", positions: { a: position } });
    let state = initialEditorState(canvas);
    expect(editorReducer(state, move({ x: 0, y: 0 }))).toBe(state);
    state = editorReducer(state, move({ x: 5, y: 5 }));
    expect(isDirty(state)).toBe(true);
    state = editorReducer(state, { type: "undo" });
    expect(state.history.present.nodes[0].position).toEqual({ x: 0, y: 0 });
  });

  it("makes what a drop does besides moving (an edge it is put into) part of the move's undo step", () => {
    let state = initialEditorState(canvas);
    state = editorReducer(state, { type: "move", positions: { a: { x: 5, y: 5 } } });
    state = editorReducer(state, {
      type: "commit",
      update: (present) => ({ ...present, edges: [{ id: "e" }] }),
      amend: true,
    });
    expect(isDirty(state)).toBe(true);
    state = editorReducer(state, { type: "undo" });
    expect(state.history.present).toBe(canvas);
  });

  it("reloads the server's version as saved, and undo brings the local edits back", () => {
    let state = initialEditorState(canvas);
    state = editorReducer(state, {
      type: "commit",
      update: (present) => ({ ...present, meta: { name: "mine" } }),
    });
    state = editorReducer(state, {
      type: "reload",
      canvas: { ...canvas, meta: { name: "theirs" } },
    });
    expect(isDirty(state)).toBe(false);
    expect(state.history.present.meta.name).toBe("theirs");
    state = editorReducer(state, { type: "undo" });
    expect(state.history.present.meta.name).toBe("mine");
    expect(isDirty(state)).toBe(true);
  });

  it("takes the server's version after a conflict with nothing to undo back to", () => {
    let state = initialEditorState(canvas);
    state = editorReducer(state, {
      type: "commit",
      update: (present) => ({ ...present, meta: { name: "mine" } }),
    });
    state = editorReducer(state, { type: "take", canvas: { ...canvas, meta: { name: "theirs" } } });
    expect(isDirty(state)).toBe(false);
    state = editorReducer(state, { type: "undo" });
    expect(state.history.present.meta.name).toBe("theirs");
    expect(isDirty(state)).toBe(false);
  });

  it("for a viewer, selects but ignores edits, moves, undo and redo", () => {
    let state = initialEditorState(canvas);
    state = viewerReducer(state, {
      type: "nodesChange",
      changes: [{ id: "a", type: "select", selected: true }],
    });
    expect(state.history.present.nodes[0].selected).toBe(true);
    const before = state;
    for (const action of [
      { type: "commit", update: (present) => ({ ...present, nodes: [] }) },
      { type: "move", positions: { a: { x: 9, y: 9 } } },
      { type: "undo" },
      { type: "redo" },
    ]) {
      state = viewerReducer(state, action);
    }
    expect(state).toBe(before);
    expect(isDirty(state)).toBe(false);
  });
});
