// Connecting by keyboard: from a focused port, the ports a connection may end at, nearest
// first, for the list the user picks from (canvas/PortTargets.jsx). The same rule as a drag
// (`connectionRule` in graph.js) decides which are offered.

import { connectionRule } from "./graph.js";

/** What a port is called to someone who cannot see the card: "Output of Read people",
 * with the port's name when its side has more than one ("Input "right" of Join"). */
export function portLabel(type, port, nodeLabel, portCount) {
  const side = type === "source" ? "Output" : "Input";
  return portCount > 1 ? `${side} "${port}" of ${nodeLabel}` : `${side} of ${nodeLabel}`;
}

/**
 * The ends a connection from `from` (`{nodeId, id, type}`, React Flow's handle) may take:
 * `[{nodeId, port, label, connection}]`, the node nearest `from`'s first (for an output, the
 * nodes to its right before those to its left, then by distance), ports in their order.
 * `labelOf(node)` is the node's name on its card.
 */
export function connectTargets(nodes, edges, from, portsOf, labelOf) {
  const rule = connectionRule(nodes, edges, portsOf);
  const origin = nodes.find((node) => node.id === from.nodeId);
  if (!origin) return [];
  const fromOutput = from.type === "source";
  const downstream = fromOutput ? 1 : -1; // where a node it connects to usually sits
  const targets = [];
  for (const node of nodes) {
    if (node.id === from.nodeId) continue;
    const ports = fromOutput ? portsOf(node).inputs : portsOf(node).outputs;
    for (const [index, port] of ports.entries()) {
      const connection = fromOutput
        ? { source: from.nodeId, sourceHandle: from.id, target: node.id, targetHandle: port.name }
        : { source: node.id, sourceHandle: port.name, target: from.nodeId, targetHandle: from.id };
      if (rule(connection)) continue;
      const dx = node.position.x - origin.position.x;
      const dy = node.position.y - origin.position.y;
      targets.push({
        nodeId: node.id,
        port: port.name,
        label: portLabel(fromOutput ? "target" : "source", port.name, labelOf(node), ports.length),
        connection,
        order: [dx * downstream >= 0 ? 0 : 1, Math.hypot(dx, dy), node.id, index],
      });
    }
  }
  targets.sort((a, b) => compareOrder(a.order, b.order));
  return targets.map(({ order: _order, ...target }) => target);
}

function compareOrder(a, b) {
  for (let index = 0; index < a.length; index += 1) {
    if (a[index] < b[index]) return -1;
    if (a[index] > b[index]) return 1;
  }
  return 0;
}
