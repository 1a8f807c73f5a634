// The edges of a big pipeline seen from afar: one SVG path each, under the nodes, drawn the way
// React Flow draws its edges. React Flow's own take a component, an SVG element and two paths
// each (about 0.1 ms apiece: 90 ms of opening a 1,000-node pipeline), for what is then a line
// too thin to point at. These cannot be selected (Canvas.jsx unselects them): zoomed in,
// React Flow's edges are back.
// While nodes are dragged, the edges at them are drawn in an SVG of their own: the one holding
// all the others stays unchanged, so each frame of the drag redraws a few paths, not them all.

import { ViewportPortal } from "@xyflow/react";
import { memo, useMemo, useState } from "react";
import { edgePath } from "./edgeCurves.js";

/** `nodes` as React Flow gets them (with `handles`, see canvas/useSizedNodes.js);
 * `moving`: the ids of the nodes being dragged (a Set), whose edges are drawn apart. */
function PlainEdges({ nodes, edges, moving }) {
  const byId = useMemo(() => new Map(nodes.map((node) => [node.id, node])), [nodes]);
  const [still, moved] = useMemo(() => splitByEnds(edges, moving), [edges, moving]);
  // During a drag the ends of the other edges stay where they were when it started.
  const stillById = useHeldWhile(moving.size > 0, byId);
  return (
    <ViewportPortal>
      <EdgePaths edges={still} byId={stillById} />
      {moved.length ? <EdgePaths edges={moved} byId={byId} /> : null}
    </ViewportPortal>
  );
}

/** `[edges with no end at a moving node, the others]`. */
function splitByEnds(edges, moving) {
  if (!moving.size) return [edges, NO_EDGES];
  const still = [];
  const moved = [];
  for (const edge of edges)
    (moving.has(edge.source) || moving.has(edge.target) ? moved : still).push(edge);
  return [still, moved];
}

const NO_EDGES = [];

/** `value`, or while `held`, the value it had when it began to be. */
function useHeldWhile(held, value) {
  const [kept, setKept] = useState(value);
  if (!held && kept !== value) setKept(value);
  return held ? kept : value;
}

/** One SVG of paths, drawn again only when its edges or their nodes change. */
const EdgePaths = memo(function EdgePaths({ edges, byId }) {
  return (
    <svg className="pw-plain-edges" aria-hidden="true">
      {edges.map((edge) => {
        const path = edgePath(edge, byId);
        return path ? <path key={edge.id} d={path} /> : null;
      })}
    </svg>
  );
});

export default memo(PlainEdges);
