// Moving nodes on the canvas. While a drag is in progress the dragged nodes' positions stay
// here, in the canvas: a mouse move re-renders the canvas alone, and neither the document,
// its undo history nor the panels around the canvas see it. The drag reaches the editor
// once, when it ends, as one move (one undo step).

import { useCallback, useMemo, useRef, useState } from "react";
import { applyPositions, splitPositionChanges } from "../document/graph.js";

/**
 * `{nodes, onNodesChange, moving}` for React Flow: `nodes` with a drag in progress laid over
 * them, and `moving` the ids of the nodes it moves (a Set, the same through the drag).
 * `onNodesMoved(positions, key)` gets the positions where a drag left its nodes (`key` null:
 * one undo step each) or where the arrow keys moved them (one `key` per selection: a run of
 * presses is one undo step); every other change goes to `onNodesChange`.
 */
export function useNodeDrag(nodes, onNodesChange, onNodesMoved) {
  const dragged = useRef(null); // {id: position} while a drag is in progress, else null
  const [shownDrag, setShownDrag] = useState(null);

  const handleNodesChange = useCallback(
    (changes) => {
      const { positions, dragging, others } = splitPositionChanges(changes);
      if (others.length) onNodesChange(others);
      if (!positions) return;
      if (dragging) {
        dragged.current = { ...dragged.current, ...positions };
        setShownDrag(dragged.current);
      } else if (dragged.current) {
        // React Flow ends every drag (also one it aborts) with the moves' final positions.
        onNodesMoved({ ...dragged.current, ...positions }, null);
        dragged.current = null;
        setShownDrag(null);
      } else {
        onNodesMoved(positions, `nudge.${Object.keys(positions).join(",")}`);
      }
    },
    [onNodesChange, onNodesMoved],
  );

  const shownNodes = useMemo(
    () => (shownDrag ? applyPositions(nodes, shownDrag) : nodes),
    [nodes, shownDrag],
  );
  const movingKey = shownDrag ? Object.keys(shownDrag).join("\n") : "";
  const moving = useMemo(() => new Set(movingKey ? movingKey.split("\n") : []), [movingKey]);
  return { nodes: shownNodes, onNodesChange: handleNodesChange, moving };
}
