// The edges of a big pipeline seen from afar: one SVG path each, under the nodes, drawn the way
// React Flow draws its edges. React Flow's own take a component, an SVG element and two paths
// each (about 0.1 ms apiece: 90 ms of opening a 1,000-node pipeline), for what is then a line
// too thin to point at. These cannot be selected (Canvas.jsx unselects them): zoomed in,
// React Flow's edges are back.

import { ViewportPortal, getBezierPath } from "@xyflow/react";
import { memo, useMemo } from "react";
import { edgeEnd } from "../../nodes/geometry.js";

/** `nodes` as React Flow gets them (with `handles`, see editor/hooks/useSizedNodes.js). */
function PlainEdges({ nodes, edges }) {
  const byId = useMemo(() => new Map(nodes.map((node) => [node.id, node])), [nodes]);
  return (
    <ViewportPortal>
      <svg className="pw-plain-edges" aria-hidden="true">
        {edges.map((edge) => {
          const path = edgePath(edge, byId);
          return path ? <path key={edge.id} d={path} /> : null;
        })}
      </svg>
    </ViewportPortal>
  );
}

export default memo(PlainEdges);

/** The SVG path of an edge, or null when one of its ends is missing. */
function edgePath(edge, byId) {
  const from = end(byId.get(edge.source), "source", edge.sourceHandle);
  const to = end(byId.get(edge.target), "target", edge.targetHandle);
  if (!from || !to) return null;
  const [path] = getBezierPath({ sourceX: from.x, sourceY: from.y, sourcePosition: from.side, targetX: to.x, targetY: to.y, targetPosition: to.side });
  return path;
}

/** `{x, y, side}` where an edge meets the handle `id` of type `type` of `node`, if it has it. */
function end(node, type, id) {
  const handle = node?.handles.find((candidate) => candidate.type === type && candidate.id === id);
  return handle ? { ...edgeEnd(node.position, handle), side: handle.position } : null;
}
