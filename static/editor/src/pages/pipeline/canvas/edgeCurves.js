// Where the edges are drawn, known without the page: each edge's curve as React Flow draws it
// (its `getBezierPath` between the handles that canvas/nodes/geometry.js places), for the plain edges
// of a zoomed-out view and for finding the edge under the pointer while an operator is dragged
// (the pointer is then over the dragged thing, not over the edge's SVG element).

import { getBezierPath } from "@xyflow/react";
import { edgeEnd } from "./nodes/geometry.js";

/** The SVG path of an edge between `byId`'s nodes (with `handles`), or null without an end. */
export function edgePath(edge, byId) {
  const ends = edgeEnds(edge, byId);
  return ends && pathBetween(ends);
}

function edgeEnds(edge, byId) {
  const from = end(byId.get(edge.source), "source", edge.sourceHandle);
  const to = end(byId.get(edge.target), "target", edge.targetHandle);
  return from && to ? { from, to } : null;
}

function pathBetween({ from, to }) {
  const [path] = getBezierPath({
    sourceX: from.x,
    sourceY: from.y,
    sourcePosition: from.side,
    targetX: to.x,
    targetY: to.y,
    targetPosition: to.side,
  });
  return path;
}

/** `{x, y, side}` where an edge meets the handle `id` of type `type` of `node`, if it has it. */
function end(node, type, id) {
  const handle = node?.handles?.find((candidate) => candidate.type === type && candidate.id === id);
  if (!handle) return null;
  const at = edgeEnd(node.position, handle);
  at.side = handle.position;
  return at;
}

const STEPS = 24;

/**
 * The id of the edge whose curve passes nearest `point` (flow coordinates), within `reach`, or
 * null. `nodes` have `handles` (canvas/useSizedNodes.js); edges touching `skip` (a node
 * id) are left out: a node is not dropped into its own edges.
 */
export function edgeNear(point, nodes, edges, reach, skip = null) {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  let best = null;
  let bestDistance = reach;
  for (const edge of edges) {
    if (edge.source === skip || edge.target === skip) continue;
    const ends = edgeEnds(edge, byId);
    if (!ends || !mayReach(point, ends, bestDistance)) continue;
    const distance = distanceToCubic(point, cubicOf(pathBetween(ends)));
    if (distance <= bestDistance) {
      best = edge.id;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Whether the curve between `ends` may pass within `reach` of `point`: its control points are
 * level with its ends, so it stays between their heights, and it reaches sideways at most as
 * far beyond them as they are apart (plus a little for ends nearly above one another).
 */
function mayReach(point, { from, to }, reach) {
  if (point.y < Math.min(from.y, to.y) - reach || point.y > Math.max(from.y, to.y) + reach)
    return false;
  const beyond = Math.abs(to.x - from.x) + 60 + reach;
  return point.x >= Math.min(from.x, to.x) - beyond && point.x <= Math.max(from.x, to.x) + beyond;
}

/** The four points of a `M x,y C x,y x,y x,y` path. */
function cubicOf(path) {
  const numbers = path.match(/-?\d+(\.\d+)?(e-?\d+)?/g).map(Number);
  return [0, 2, 4, 6].map((at) => ({ x: numbers[at], y: numbers[at + 1] }));
}

/** The distance from `point` to the cubic Bézier `[p0, c1, c2, p3]`, along STEPS chords. */
function distanceToCubic(point, [p0, c1, c2, p3]) {
  let nearest = Infinity;
  let previous = p0;
  for (let step = 1; step <= STEPS; step += 1) {
    const t = step / STEPS;
    const u = 1 - t;
    const at = {
      x: u * u * u * p0.x + 3 * u * u * t * c1.x + 3 * u * t * t * c2.x + t * t * t * p3.x,
      y: u * u * u * p0.y + 3 * u * u * t * c1.y + 3 * u * t * t * c2.y + t * t * t * p3.y,
    };
    nearest = Math.min(nearest, distanceToSegment(point, previous, at));
    previous = at;
  }
  return nearest;
}

function distanceToSegment(point, a, b) {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const length = dx * dx + dy * dy;
  const t = length
    ? Math.max(0, Math.min(1, ((point.x - a.x) * dx + (point.y - a.y) * dy) / length))
    : 0;
  return Math.hypot(point.x - (a.x + t * dx), point.y - (a.y + t * dy));
}
