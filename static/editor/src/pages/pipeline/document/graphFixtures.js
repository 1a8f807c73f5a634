// Nodes and edges for the graph model's tests (graph.test.js, connect.test.js): operators with
// one input, many inputs and two inputs, and small makers of nodes and edges.

import { createNode, makeEdge } from "./graph.js";

export const PORTS = {
  csv_input: { inputs: [], outputs: [{ name: "out", many: false, required: true }] },
  filter: {
    inputs: [{ name: "in", many: false, required: true }],
    outputs: [{ name: "out", many: false, required: true }],
  },
  union: {
    inputs: [{ name: "in", many: true, required: true }],
    outputs: [{ name: "out", many: false, required: true }],
  },
  join: {
    inputs: [
      { name: "left", many: false, required: true },
      { name: "right", many: false, required: true },
    ],
    outputs: [{ name: "out", many: false, required: true }],
  },
};
export const portsOf = (node) => PORTS[node.data.operator];
export const node = (id, operator, extra = {}) => ({
  ...createNode(operator, "t", { x: 0, y: 0 }, id),
  ...extra,
});
export const link = (source, target, targetHandle = "in") =>
  makeEdge({ source, sourceHandle: "out", target, targetHandle });
