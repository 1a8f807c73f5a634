// The selected nodes, for the side panel.

import { useRef } from "react";

/** The selected nodes: the same array while the same node objects are selected, so that the
 * panels showing them skip a render when other nodes change. */
export function useSelectedNodes(nodes) {
  const last = useRef([]);
  const selected = nodes.filter((node) => node.selected);
  if (!sameItems(selected, last.current)) last.current = selected;
  return last.current;
}

const sameItems = (a, b) => a.length === b.length && a.every((item, index) => item === b[index]);
