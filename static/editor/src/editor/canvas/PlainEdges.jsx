// The edges of a big pipeline seen from afar: one SVG path each, under the nodes, drawn the way
// React Flow draws its edges. React Flow's own take a component, an SVG element and two paths
// each (about 0.1 ms apiece: 90 ms of opening a 1,000-node pipeline), for what is then a line
// too thin to point at. These cannot be selected (Canvas.jsx unselects them): zoomed in,
// React Flow's edges are back.

import { ViewportPortal } from "@xyflow/react";
import { memo, useMemo } from "react";
import { edgePath } from "../../model/edgeCurves.js";

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
