// Which nodes the last run no longer describes: each node edited since (its operator or params
// changed, what feeds it changed, or it is new) and everything below it in the pipeline as it
// is now. The canvas marks them stale instead of leaving them green until the next run.

import { stableText } from "../../../lib/stableText.js";
import { INLINED, inlinedOwner } from "../subpipelines/subpipelines.js";

/** The ids of the stale nodes of `current` (a document: `{nodes, edges}`), given the document
 * `ran` of the last run; none when no run is known. Moves and labels change nothing. */
export function staleNodes(ran, current) {
  const stale = new Set();
  if (!ran) return stale;
  // A run holds a sub-pipeline node's inlined nodes (`<id>__...`), not the node: edges from
  // them read as from it, and it is stale only when none of them ran.
  const subs = new Set(
    (current.nodes ?? []).filter((node) => INLINED.has(node.operator)).map((node) => node.id),
  );
  const before = nodeKeys(ran, subs);
  const now = nodeKeys(current, subs);
  const inlined = new Set([...before.keys()].map((id) => inlinedOwner(id, subs)));
  for (const [id, key] of now) {
    if (subs.has(id) ? !inlined.has(id) : before.get(id) !== key) stale.add(id);
  }
  const children = new Map();
  for (const edge of current.edges ?? []) {
    if (!children.has(edge.source)) children.set(edge.source, []);
    children.get(edge.source).push(edge.target);
  }
  const stack = [...stale];
  while (stack.length) {
    for (const child of children.get(stack.pop()) ?? []) {
      if (!stale.has(child)) {
        stale.add(child);
        stack.push(child);
      }
    }
  }
  return stale;
}

/** `Map(id → text)`: what a node computes, as text (its operator, params, and input edges). */
function nodeKeys(document, subs) {
  const inputs = new Map();
  for (const edge of document.edges ?? []) {
    const owner = inlinedOwner(edge.source, subs);
    const wire = owner
      ? `${owner}:*>${edge.target_port ?? "in"}`
      : `${edge.source}:${edge.source_port ?? "out"}>${edge.target_port ?? "in"}`;
    if (!inputs.has(edge.target)) inputs.set(edge.target, []);
    inputs.get(edge.target).push(wire);
  }
  return new Map(
    (document.nodes ?? []).map((node) => [
      node.id,
      stableText([node.operator, node.params ?? {}, (inputs.get(node.id) ?? []).sort()]),
    ]),
  );
}
