// Nodes added already wired: chosen from the palette that opens where a connection was dragged
// into empty space, or dropped on an edge (from the palette, or a node without edges moved
// there). Each is one undo step; what the rules refuse is said in a toast.

import { useCallback } from "react";
import { addNode, applyPositions, createNode, uniqueNodeId } from "../document/graph.js";
import { addConnected, insertOnEdge } from "../document/wiring.js";
import { cardGeometry } from "./nodes/geometry.js";

/**
 * `{addConnected(name, from, point), dropOnEdge(name, edgeId, point), insertNode(nodeId,
 * edgeId)}`: `from` is React Flow's handle (`{nodeId, id, type}`), `point` where the pointer
 * was, in flow coordinates. `commit(update)` makes an undo step, `amend(update)` changes the
 * last one. A node put into an edge goes to the free space nearest where it was let go
 * (`freeSpot(center, size, skip)`: useFreeSpot.js), off the cards at either end.
 */
export function useWiredAdds({ catalog, stateRef, commit, amend, toasts, freeSpot }) {
  /** A new node of operator `name` placed by `place(size, handles)`, with a fresh id. */
  const newNode = useCallback(
    (name, place) => {
      const present = stateRef.current.history.present;
      const id = uniqueNodeId(
        name,
        present.nodes.map((node) => node.id),
      );
      const ports = catalog.byName.get(name);
      return createNode(name, catalog.typeOf(name), place(cardGeometry(ports, false)), id);
    },
    [catalog, stateRef],
  );

  const addWired = useCallback(
    (name, from, point) => {
      if (!catalog.byName.has(name)) return;
      const side = from.type === "source" ? "target" : "source";
      // The new node's first port of the side it connects by lands where the pointer was.
      const node = newNode(name, ({ handles }) => {
        const handle = handles.find((candidate) => candidate.type === side);
        return handle
          ? { x: point.x - handle.x - handle.width / 2, y: point.y - handle.y - handle.height / 2 }
          : point;
      });
      const present = stateRef.current.history.present;
      const result = addConnected(present.nodes, present.edges, node, from, catalog.portsOf);
      commit((now) => ({ ...now, nodes: result.nodes, edges: result.edges }));
      if (result.error)
        toasts.show(`Added ${node.id}, not connected: ${result.error}.`, { kind: "error" });
    },
    [catalog, stateRef, commit, toasts, newNode],
  );

  const dropOnEdge = useCallback(
    (name, edgeId, point) => {
      if (!catalog.byName.has(name)) return;
      const node = newNode(name, ({ width, height }) => freeSpot(point, { width, height }));
      const present = stateRef.current.history.present;
      const result = insertOnEdge(present.nodes, present.edges, edgeId, node, catalog.portsOf);
      if (result.error) {
        commit((now) => ({ ...now, nodes: addNode(now.nodes, node) }));
        toasts.show(`Added ${node.id}, not put into the edge: ${result.error}.`, { kind: "error" });
        return;
      }
      commit((now) => ({ ...now, nodes: result.nodes, edges: result.edges }));
    },
    [catalog, stateRef, commit, toasts, newNode, freeSpot],
  );

  /** Puts node `nodeId` (just moved there) into the edge, as part of the move's undo step. */
  const insertNode = useCallback(
    (nodeId, edgeId) => {
      const present = stateRef.current.history.present;
      const node = present.nodes.find((candidate) => candidate.id === nodeId);
      if (!node) return;
      const result = insertOnEdge(present.nodes, present.edges, edgeId, node, catalog.portsOf);
      if (result.error) {
        toasts.show(`Not put into the edge: ${result.error}.`, { kind: "error" });
        return;
      }
      const size = cardGeometry(catalog.portsOf(node), false);
      const center = { x: node.position.x + size.width / 2, y: node.position.y + size.height / 2 };
      const spot = freeSpot(center, size, new Set([nodeId]));
      amend((now) => ({
        ...now,
        nodes: applyPositions(now.nodes, { [nodeId]: spot }),
        edges: result.edges,
      }));
    },
    [catalog, stateRef, amend, toasts, freeSpot],
  );

  return { addConnected: addWired, dropOnEdge, insertNode };
}
