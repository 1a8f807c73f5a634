import { describe, expect, it } from "vitest";
import { countsLine, shownValue, unionGraph } from "./versionDiff.js";

const edge = (source, target) => ({ source, source_port: "out", target, target_port: "in" });
const node = (id, x = 0) => ({
  id,
  operator: "filter",
  label: "",
  params: {},
  position: { x, y: 0 },
});
const items = () => ({ added: [], removed: [], changed: [], moved: [] });

describe("unionGraph", () => {
  const older = {
    nodes: [node("a"), node("b"), node("gone")],
    edges: [edge("a", "gone"), edge("a", "b")],
  };
  const newer = {
    nodes: [node("a", 50), node("b"), node("new")],
    edges: [edge("a", "b"), edge("b", "new")],
  };
  const diff = {
    nodes: { added: ["new"], removed: ["gone"], changed: [{ id: "b", changes: [] }], moved: ["a"] },
    edges: { added: [edge("b", "new")], removed: [edge("a", "gone")] },
  };

  it("draws the newer version's nodes and the older's removed ones, each marked", () => {
    const { nodes } = unionGraph(older, newer, diff);
    expect(nodes.map((item) => [item.id, item.data.mark])).toEqual([
      ["a", "moved"],
      ["b", "changed"],
      ["new", "added"],
      ["gone", "removed"],
    ]);
    expect(nodes[0].position).toEqual({ x: 50, y: 0 });
  });

  it("keeps removed edges and marks the added ones", () => {
    const { edges } = unionGraph(older, newer, diff);
    expect(edges.map((item) => [item.source, item.target, item.data.mark])).toEqual([
      ["a", "b", "same"],
      ["b", "new", "added"],
      ["a", "gone", "removed"],
    ]);
  });
});

describe("countsLine", () => {
  it("counts nodes and edges by what happened, and the rest together", () => {
    const diff = {
      pipeline: [{ field: "name" }],
      nodes: { ...items(), added: ["x"], changed: [{ id: "y" }] },
      edges: { added: [edge("x", "y")], removed: [] },
      notes: items(),
      groups: items(),
    };
    expect(countsLine(diff)).toBe("2 added, 1 changed, 1 other changes");
  });

  it("says when nothing differs", () => {
    const diff = {
      pipeline: [],
      nodes: items(),
      edges: { added: [], removed: [] },
      notes: items(),
      groups: items(),
    };
    expect(countsLine(diff)).toBe("no changes");
  });
});

describe("shownValue", () => {
  it("shows text as it is, other values as JSON, and nothing as a dash", () => {
    expect(shownValue("age > 1")).toBe("age > 1");
    expect(shownValue(["a", "b"])).toBe('[\n  "a",\n  "b"\n]');
    expect(shownValue(null)).toBe("—");
    expect(shownValue(undefined)).toBe("—");
  });
});
