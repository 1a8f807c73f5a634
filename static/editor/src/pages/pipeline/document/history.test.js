import { describe, expect, it } from "vitest";
import { canRedo, canUndo, createHistory, record, redo, replace, undo } from "./history.js";

describe("undo and redo", () => {
  it("undoes and redoes recorded steps in order", () => {
    let history = createHistory("a");
    history = record(history, "b");
    history = record(history, "c");
    history = undo(history);
    expect(history.present).toBe("b");
    history = undo(history);
    expect(history.present).toBe("a");
    expect(canUndo(history)).toBe(false);
    history = redo(history);
    expect(history.present).toBe("b");
    history = redo(history);
    expect(history.present).toBe("c");
    expect(canRedo(history)).toBe(false);
  });

  it("forgets the redo steps when something new is recorded", () => {
    let history = record(record(createHistory("a"), "b"), "c");
    history = record(undo(history), "d");
    expect(canRedo(history)).toBe(false);
    expect(undo(history).present).toBe("b");
  });

  it("merges consecutive records with the same key into one step", () => {
    let history = createHistory("");
    for (const text of ["a", "ab", "abc"]) history = record(history, text, "params.condition");
    history = record(history, "x", "label");
    expect(undo(history).present).toBe("abc");
    expect(undo(undo(history)).present).toBe("");
  });

  it("does not merge across an undo", () => {
    let history = record(createHistory(""), "a", "k");
    history = undo(history);
    history = record(history, "b", "k");
    expect(history.past).toEqual([""]);
  });

  it("replaces the present without a step for transient changes", () => {
    const history = replace(record(createHistory("a"), "b"), "b-selected");
    expect(history.present).toBe("b-selected");
    expect(undo(history).present).toBe("a");
  });

  it("leaves the history alone when there is nothing to undo or redo", () => {
    const history = createHistory("a");
    expect(undo(history)).toBe(history);
    expect(redo(history)).toBe(history);
  });
});
