// The selected nodes, for the side panel.

import { useState } from "react";

/** The selected nodes: the same array while the same node objects are selected, so that the
 * panels showing them skip a render when other nodes change. */
export function useSelectedNodes(nodes) {
  const [last, setLast] = useState([]);
  const selected = nodes.filter((node) => node.selected);
  const same = sameItems(selected, last);
  if (!same) setLast(selected);
  return same ? last : selected;
}

const sameItems = (a, b) => a.length === b.length && a.every((item, index) => item === b[index]);
