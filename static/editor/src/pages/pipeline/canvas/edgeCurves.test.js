import { Position } from "@xyflow/react";
import { describe, expect, it } from "vitest";
import { edgeNear, edgePath } from "./edgeCurves.js";

const handles = [
  { id: "in", type: "target", position: Position.Left, x: -4, y: 40, width: 8, height: 8 },
  { id: "out", type: "source", position: Position.Right, x: 196, y: 40, width: 8, height: 8 },
];
const node = (id, x, y) => ({ id, position: { x, y }, handles });
const edge = (source, target) => ({
  id: `${source}->${target}`,
  source,
  sourceHandle: "out",
  target,
  targetHandle: "in",
});

describe("edges found under the pointer", () => {
  const nodes = [node("a", 0, 0), node("b", 400, 0), node("c", 0, 300), node("d", 400, 300)];
  const edges = [edge("a", "b"), edge("c", "d")];

  it("draws an edge from the outer side of its source handle to that of its target", () => {
    expect(edgePath(edges[0], new Map(nodes.map((item) => [item.id, item])))).toBe(
      "M204,44 C300,44 300,44 396,44",
    );
  });

  it("finds the nearest edge within reach, and none out of reach", () => {
    expect(edgeNear({ x: 300, y: 50 }, nodes, edges, 10)).toBe("a->b");
    expect(edgeNear({ x: 300, y: 340 }, nodes, edges, 10)).toBe("c->d");
    expect(edgeNear({ x: 300, y: 180 }, nodes, edges, 10)).toBeNull();
  });

  it("leaves out the edges of the node being dragged and those missing an end", () => {
    expect(edgeNear({ x: 300, y: 44 }, nodes, edges, 10, "a")).toBeNull();
    expect(edgeNear({ x: 300, y: 44 }, nodes.slice(1), edges, 10)).toBeNull();
  });
});
