// Where the middle of the canvas is, in the graph's coordinates: where "Add note" and a
// palette click put what they add.

import { useReactFlow } from "@xyflow/react";
import { useCallback } from "react";

/** `viewCenter()`: the middle of the element in `canvasBox` (a ref), as a flow position. */
export function useViewCenter(canvasBox) {
  const reactFlow = useReactFlow();
  return useCallback(() => {
    const box = canvasBox.current?.getBoundingClientRect();
    return box ? reactFlow.screenToFlowPosition({ x: box.left + box.width / 2, y: box.top + box.height / 2 }) : { x: 0, y: 0 };
  }, [canvasBox, reactFlow]);
}
