// The free spot nearest a wanted one on the editor's canvas (document/freeSpace.js), with the
// cards sized as they are drawn (problem notes included) and the sticky notes counted.

import { useCallback } from "react";
import { boxesOf, freeSpotAround } from "../document/freeSpace.js";
import { noteSize } from "../document/canvasItems.js";
import { cardGeometry } from "./nodes/geometry.js";

/**
 * `{freeSpot(center, size, skip), sizeOf(node)}`: `freeSpot` is the top left corner of a box of
 * `size` as near as can be to being centred on `center` (flow coordinates) with no card or note
 * under it; the node ids in `skip` (a Set) do not count. `sizeOf` is a card's drawn size.
 */
export function useFreeSpot({ catalog, overlay, stateRef }) {
  const sizeOf = useCallback(
    (node) => {
      const { width, height } = cardGeometry(
        catalog.portsOf(node),
        Boolean(overlay.get().problems[node.id]?.length),
      );
      return { width, height };
    },
    [catalog, overlay],
  );
  const freeSpot = useCallback(
    (center, size, skip = NONE) => {
      const present = stateRef.current.history.present;
      const nodes = present.nodes.filter((node) => !skip.has(node.id));
      const boxes = [...boxesOf(nodes, sizeOf), ...boxesOf(present.meta.notes ?? [], noteSize)];
      return freeSpotAround(boxes, center, size);
    },
    [sizeOf, stateRef],
  );
  return { freeSpot, sizeOf };
}

const NONE = new Set();
