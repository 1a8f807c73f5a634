import { describe, expect, it } from "vitest";
import { keepSelection } from "./useSaving.js";

describe("keepSelection", () => {
  it("keeps selected the nodes the user had selected, where they still exist", () => {
    const present = {
      nodes: [
        { id: "a", selected: true },
        { id: "gone", selected: true },
      ],
    };
    const canvas = { meta: {}, nodes: [{ id: "a" }, { id: "b" }], edges: [] };
    expect(keepSelection(canvas, present).nodes).toEqual([
      { id: "a", selected: true },
      { id: "b" },
    ]);
  });

  it("leaves a canvas alone when nothing was selected", () => {
    const canvas = { meta: {}, nodes: [{ id: "a" }], edges: [] };
    expect(keepSelection(canvas, { nodes: [{ id: "a" }] })).toBe(canvas);
  });
});
