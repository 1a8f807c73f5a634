// Dropping an operator on an edge: while an operator is dragged from the palette, or a node
// without edges is dragged across the canvas, the edge under the pointer is the target (drawn
// highlighted); let go there, the operator is put into it (useWiredAdds.js does that).

import { useReactFlow } from "@xyflow/react";
import { useCallback, useMemo, useRef, useState } from "react";
import { useLatest } from "../../../lib/useLatest.js";
import { edgeNear } from "./edgeCurves.js";
import { isUnconnected } from "../document/wiring.js";

const REACH_PX = 14; // how near the edge the pointer must be, on the screen

/**
 * `{target, shownEdges, overAt(event), clear(), onNodeDrag, onNodeDragStop}`: `target` is the
 * id of the edge under the pointer (or null), `shownEdges` are `edges` with it highlighted.
 * `sized` are the operators' nodes with their handles; `onInsertNode(nodeId, edgeId)` is
 * called when a node without edges is let go on an edge.
 */
export function useEdgeDrop({ sized, edges, onInsertNode }) {
  const { screenToFlowPosition, getZoom } = useReactFlow();
  const [target, setShownTarget] = useState(null);
  const targetRef = useRef(null); // the same, for the drop that follows in the same event
  const setTarget = useCallback((id) => {
    targetRef.current = id;
    setShownTarget(id);
  }, []);

  // The callbacks read the latest nodes and edges: React Flow keeps one `onNodeDrag` through
  // a drag, whose every frame gives new nodes.
  const latest = useLatest({ sized, edges });
  // A palette drag repeats its `dragover` while the pointer rests: the answer is kept for it.
  const lastFind = useRef(null);
  const find = useCallback(
    (event, skip = null) => {
      const { sized: nodes, edges: shown } = latest.current;
      const key = `${event.clientX},${event.clientY},${getZoom()},${skip}`;
      if (
        lastFind.current?.key === key &&
        lastFind.current.nodes === nodes &&
        lastFind.current.edges === shown
      )
        return lastFind.current.found;
      const found = edgeNear(
        screenToFlowPosition({ x: event.clientX, y: event.clientY }),
        nodes,
        shown,
        REACH_PX / getZoom(),
        skip,
      );
      lastFind.current = { key, nodes, edges: shown, found };
      return found;
    },
    [screenToFlowPosition, getZoom, latest],
  );
  /** The edge under a palette drag's pointer now, also made the target. */
  const overAt = useCallback(
    (event) => {
      const found = find(event);
      setTarget(found);
      return found;
    },
    [find, setTarget],
  );
  const clear = useCallback(() => setTarget(null), [setTarget]);

  const onNodeDrag = useCallback(
    (event, node, dragged) => {
      const alone =
        dragged.length === 1 &&
        node.type !== "canvasNote" &&
        node.type !== "canvasGroup" &&
        isUnconnected(latest.current.edges, node.id);
      setTarget(alone ? find(event, node.id) : null);
    },
    [find, setTarget, latest],
  );
  const onNodeDragStop = useCallback(
    (_event, node) => {
      const found = targetRef.current;
      setTarget(null);
      if (found) onInsertNode(node.id, found);
    },
    [onInsertNode, setTarget],
  );

  const shownEdges = useMemo(
    () =>
      target
        ? edges.map((edge) =>
            edge.id === target
              ? { ...edge, className: `${edge.className ?? ""} pw-edge-drop-target`.trim() }
              : edge,
          )
        : edges,
    [edges, target],
  );
  return { target, shownEdges, overAt, clear, onNodeDrag, onNodeDragStop };
}
