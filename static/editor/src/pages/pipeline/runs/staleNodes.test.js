import { describe, expect, it } from "vitest";
import { staleNodes } from "./staleNodes.js";

const ran = {
  nodes: [
    { id: "read", operator: "csv_input", params: { path: "people.csv" }, position: { x: 0 } },
    { id: "keep", operator: "filter", params: { condition: "age >= 18" } },
    { id: "write", operator: "csv_output", params: { path: "out.csv" } },
    { id: "copy", operator: "csv_output", params: { path: "copy.csv" } },
  ],
  edges: [
    { source: "read", target: "keep" },
    { source: "keep", target: "write" },
    { source: "read", target: "copy" },
  ],
};

const edited = (id, params) => ({
  ...ran,
  nodes: ran.nodes.map((node) => (node.id === id ? { ...node, params } : node)),
});

describe("staleNodes", () => {
  it("marks an edited node and everything below it, not its siblings", () => {
    expect([...staleNodes(ran, edited("keep", { condition: "age > 30" }))].sort()).toEqual([
      "keep",
      "write",
    ]);
  });

  it("marks everything below an edited input", () => {
    expect(staleNodes(ran, edited("read", { path: "other.csv" })).size).toBe(4);
  });

  it("ignores moves, labels and the order of params' keys", () => {
    const moved = {
      ...ran,
      nodes: ran.nodes.map((node) => ({ ...node, position: { x: 99 }, label: "renamed" })),
    };
    expect(staleNodes(ran, moved).size).toBe(0);
    const reordered = edited("read", { path: "people.csv" });
    expect(staleNodes(ran, reordered).size).toBe(0);
  });

  it("marks a node whose input was rewired, and a new node", () => {
    const rewired = {
      nodes: [...ran.nodes, { id: "keep2", operator: "filter", params: { condition: "x" } }],
      edges: [
        { source: "read", target: "keep2" },
        { source: "keep2", target: "write" },
        { source: "read", target: "copy" },
      ],
    };
    expect([...staleNodes(ran, rewired)].sort()).toEqual(["keep", "keep2", "write"]);
  });

  it("marks nothing without a last run", () => {
    expect(staleNodes(null, ran).size).toBe(0);
  });
});
