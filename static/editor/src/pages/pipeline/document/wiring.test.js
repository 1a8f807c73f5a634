import { describe, expect, it } from "vitest";
import { createNode, makeEdge } from "./graph.js";
import { addConnected, insertOnEdge, isUnconnected, operatorsFor } from "./wiring.js";

const PORTS = {
  csv_input: { inputs: [], outputs: [{ name: "out", many: true, required: true }] },
  csv_output: { inputs: [{ name: "in", many: false, required: true }], outputs: [] },
  filter: {
    inputs: [{ name: "in", many: false, required: true }],
    outputs: [{ name: "out", many: true, required: true }],
  },
  join: {
    inputs: [
      { name: "left", many: false, required: true },
      { name: "right", many: false, required: true },
    ],
    outputs: [{ name: "out", many: true, required: true }],
  },
};
const ITEMS = Object.entries(PORTS).map(([name, ports]) => ({ name, ...ports }));
const portsOf = (node) => PORTS[node.data.operator];
const node = (id, operator) => createNode(operator, "t", { x: 0, y: 0 }, id);
const link = (source, target, targetHandle = "in") =>
  makeEdge({ source, sourceHandle: "out", target, targetHandle });

describe("the palette at a let-go connection", () => {
  it("offers operators with an input for an output, with an output for an input", () => {
    expect(operatorsFor(ITEMS, "source").map((item) => item.name)).toEqual([
      "csv_output",
      "filter",
      "join",
    ]);
    expect(operatorsFor(ITEMS, "target").map((item) => item.name)).toEqual([
      "csv_input",
      "filter",
      "join",
    ]);
  });
});

describe("a new node connected where a connection was let go", () => {
  it("is fed by the output through its first input, and selected", () => {
    const result = addConnected(
      [node("read", "csv_input")],
      [],
      node("join_1", "join"),
      { nodeId: "read", id: "out", type: "source" },
      portsOf,
    );
    expect(result.error).toBeUndefined();
    expect(result.edges).toEqual([link("read", "join_1", "left")]);
    expect(result.nodes.find((item) => item.id === "join_1").selected).toBe(true);
  });

  it("feeds the input from its first output", () => {
    const result = addConnected(
      [node("write", "csv_output")],
      [],
      node("filter_1", "filter"),
      { nodeId: "write", id: "in", type: "target" },
      portsOf,
    );
    expect(result.edges).toEqual([link("filter_1", "write")]);
  });

  it("is added alone, with the rule's reason, when the input it would feed is taken", () => {
    const nodes = [node("read", "csv_input"), node("write", "csv_output")];
    const result = addConnected(
      nodes,
      [link("read", "write")],
      node("filter_1", "filter"),
      { nodeId: "write", id: "in", type: "target" },
      portsOf,
    );
    expect(result.nodes).toHaveLength(3);
    expect(result.edges).toEqual([link("read", "write")]);
    expect(result.error).toMatch(/input "in" of write takes one connection and already has one/);
  });

  it("says so when the operator has no port of that side", () => {
    const result = addConnected(
      [node("read", "csv_input")],
      [],
      node("csv_input_2", "csv_input"),
      { nodeId: "read", id: "out", type: "source" },
      portsOf,
    );
    expect(result.error).toBe("csv_input_2 has no input");
  });
});

describe("a node dropped on an edge", () => {
  const nodes = [node("read", "csv_input"), node("write", "csv_output")];
  const edges = [link("read", "write")];

  it("splits it: A→B becomes A→new→B, into the first input and out of the first output", () => {
    const result = insertOnEdge(nodes, edges, edges[0].id, node("join_1", "join"), portsOf);
    expect(result.edges).toEqual([link("read", "join_1", "left"), link("join_1", "write")]);
    expect(result.nodes.map((item) => item.id)).toEqual(["read", "write", "join_1"]);
  });

  it("is refused for an operator without an input or an output", () => {
    expect(
      insertOnEdge(nodes, edges, edges[0].id, node("csv_input_2", "csv_input"), portsOf),
    ).toEqual({ error: "csv_input_2 has no input" });
    expect(
      insertOnEdge(nodes, edges, edges[0].id, node("csv_output_2", "csv_output"), portsOf),
    ).toEqual({ error: "csv_output_2 has no output" });
  });

  it("takes a node already on the canvas only while it has no edge", () => {
    const filter = node("filter_1", "filter");
    const inserted = insertOnEdge([...nodes, filter], edges, edges[0].id, filter, portsOf);
    expect(inserted.nodes).toHaveLength(3);
    expect(inserted.edges).toEqual([link("read", "filter_1"), link("filter_1", "write")]);
    const wired = [...edges, link("read", "filter_1")];
    expect(isUnconnected(wired, "filter_1")).toBe(false);
    expect(insertOnEdge([...nodes, filter], wired, edges[0].id, filter, portsOf)).toEqual({
      error: "filter_1 is connected already",
    });
  });

  it("is refused when the edge is gone (undone meanwhile)", () => {
    expect(
      insertOnEdge(nodes, [], "read.out->write.in", node("filter_1", "filter"), portsOf),
    ).toEqual({ error: "that edge is gone" });
  });
});
