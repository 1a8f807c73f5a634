// Where the middle of the canvas is, in the graph's coordinates: where "Add note" and a
// palette click put what they add.

import { useReactFlow } from "@xyflow/react";
import { useCallback, useRef } from "react";

/** `{box, viewCenter}`: `box` is the ref to give the canvas's element; `viewCenter()` is the
 * middle of that element as a flow position. */
export function useViewCenter() {
  const reactFlow = useReactFlow();
  const box = useRef(null);
  const viewCenter = useCallback(() => {
    const rect = box.current?.getBoundingClientRect();
    return rect
      ? reactFlow.screenToFlowPosition({
          x: rect.left + rect.width / 2,
          y: rect.top + rect.height / 2,
        })
      : { x: 0, y: 0 };
  }, [reactFlow]);
  return { box, viewCenter };
}
