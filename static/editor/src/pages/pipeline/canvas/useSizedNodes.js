// The nodes as React Flow gets them: each with its card's size and handles (canvas/nodes/geometry.js)
// declared, so that React Flow draws a pipeline's nodes and edges in one go when it opens
// instead of drawing the cards hidden, measuring every one and then drawing them again.

import { useMemo, useState } from "react";
import { cardGeometry } from "./nodes/geometry.js";

/**
 * `nodes` with `measured` (the card's size) and `handles` added: React Flow draws such a node,
 * and its edges, at once, without looking for its handles in the page. (`width` and `height`
 * would not do: a node without `measured` never counts as initialized, and `fitView` waits
 * for that.) `portsOf(node)` gives a node's ports; `flagged` holds the ids of the nodes with
 * problems, whose cards are taller by their problem note; `stray` the ports that stored
 * edges name and the operator lacks (document/graph.js `strayPorts`), which get handles too and
 * are in the copy's `data.strayPorts` for the card to draw.
 *
 * A node keeps its sized copy while it stays the same object and keeps its problems or none:
 * React Flow compares node objects, and looks again only at the nodes that changed.
 */
export function useSizedNodes(nodes, portsOf, flagged, stray = NO_STRAY) {
  const [copies] = useState(() => new WeakMap());
  return useMemo(
    () => sizeNodes(nodes, portsOf, flagged, copies, stray),
    [nodes, portsOf, flagged, stray, copies],
  );
}

const NO_STRAY = {};

/** `useSizedNodes` without React: `copies` (a WeakMap) keeps the sized copies between calls. */
export function sizeNodes(nodes, portsOf, flagged, copies, stray = NO_STRAY) {
  return nodes.map((node) => {
    const withProblem = flagged.has(node.id);
    const strayPorts = stray[node.id];
    const known = copies.get(node);
    if (known?.withProblem === withProblem && known.strayKey === strayKey(strayPorts))
      return known.sized;
    const { width, height, handles } = cardGeometry(portsOf(node), withProblem, strayPorts);
    const data = strayPorts ? { ...node.data, strayPorts } : node.data;
    const sized = { ...node, data, measured: { width, height }, handles };
    copies.set(node, { withProblem, strayKey: strayKey(strayPorts), sized });
    return sized;
  });
}

const strayKey = (ports) => (ports ? `${ports.inputs.join(",")}|${ports.outputs.join(",")}` : "");
