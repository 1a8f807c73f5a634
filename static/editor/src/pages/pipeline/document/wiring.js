// Adding a node that is wired as it lands: at the end of a connection dragged into empty space,
// or dropped on an edge, which it then splits. Every connection goes through `connect` in
// graph.js, so these obey the rules a connection drawn by hand (and the server) obey.

import { addNode, connect } from "./graph.js";

/**
 * The catalog items a connection dragged from a handle of `side` ("source": an output,
 * "target": an input) can end at: those with an input, or those with an output.
 */
export function operatorsFor(items, side) {
  const wanted = side === "source" ? "inputs" : "outputs";
  return items.filter((item) => item[wanted].length > 0);
}

/**
 * `{nodes, edges}` with `node` added and connected to the handle `from` (React Flow's
 * `{nodeId, id, type}`) through the first of its ports that takes the connection, or
 * `{nodes, edges, error}` with the node added alone when none does (why the first refused).
 */
export function addConnected(nodes, edges, node, from, portsOf) {
  const withNode = addNode(nodes, node);
  const fromOutput = from.type === "source";
  const ports = fromOutput ? portsOf(node).inputs : portsOf(node).outputs;
  let error = `${node.id} has no ${fromOutput ? "input" : "output"}`;
  for (const [index, port] of ports.entries()) {
    const connection = fromOutput
      ? { source: from.nodeId, sourceHandle: from.id, target: node.id, targetHandle: port.name }
      : { source: node.id, sourceHandle: port.name, target: from.nodeId, targetHandle: from.id };
    const result = connect(withNode, edges, connection, portsOf);
    if (!result.error) return { nodes: withNode, edges: result.edges };
    if (index === 0) error = result.error;
  }
  return { nodes: withNode, edges, error };
}

/**
 * `{nodes, edges}` with `node` put into the edge `id` (A→B becomes A→node→B, into its first
 * input and out of its first output), or `{error}` saying why it cannot be. `node` is either
 * new (added) or already on the canvas without edges.
 */
export function insertOnEdge(nodes, edges, id, node, portsOf) {
  const edge = edges.find((candidate) => candidate.id === id);
  if (!edge) return { error: "that edge is gone" };
  if (!isUnconnected(edges, node.id)) return { error: `${node.id} is connected already` };
  const { inputs, outputs } = portsOf(node);
  if (!inputs.length) return { error: `${node.id} has no input` };
  if (!outputs.length) return { error: `${node.id} has no output` };
  const present = nodes.some((other) => other.id === node.id);
  const withNode = present ? nodes : addNode(nodes, node);
  const without = edges.filter((other) => other.id !== id);
  const into = connect(
    withNode,
    without,
    {
      source: edge.source,
      sourceHandle: edge.sourceHandle,
      target: node.id,
      targetHandle: inputs[0].name,
    },
    portsOf,
  );
  if (into.error) return { error: into.error };
  const out = connect(
    withNode,
    into.edges,
    {
      source: node.id,
      sourceHandle: outputs[0].name,
      target: edge.target,
      targetHandle: edge.targetHandle,
    },
    portsOf,
  );
  if (out.error) return { error: out.error };
  return { nodes: withNode, edges: out.edges };
}

/** Whether node `id` has no edge: only such a node is put into an edge it is dropped on. */
export function isUnconnected(edges, id) {
  return !edges.some((edge) => edge.source === id || edge.target === id);
}
