// While the user drags a connection (or has clicked a handle to connect), the handles it may
// not end at, so that the cards grey them out before the drop: the same rule the drop and the
// server apply (`connectionProblem` in document/graph.js).

import { useStore } from "@xyflow/react";
import { useMemo } from "react";
import { handleKey, refusedEnds } from "../document/graph.js";

const NONE = new Map();

/** The handle a connection starts from, as a key that changes only when the start does. */
function startKey(state) {
  const from = state.connection.fromHandle ?? state.connectionClickStartHandle;
  return from ? handleKey(from.nodeId, from.type, from.id) : null;
}

/** `Map(handleKey → why)` of the ends the connection in progress may not take; empty when none is. */
export function useRefusedEnds(nodes, edges, portsOf) {
  const key = useStore(startKey);
  return useMemo(() => {
    if (key === null) return NONE;
    const [nodeId, type, id] = key.split("\u0000");
    return refusedEnds(nodes, edges, { nodeId, type, id }, portsOf);
  }, [key, nodes, edges, portsOf]);
}
