// Two versions of a pipeline drawn as one graph: every node and edge of the newer version,
// plus what the older had and the newer does not, each marked with what happened to it
// (from the server's diff: `GET …/diff`, the one definition of a difference).

const EDGE_KEYS = ["source", "source_port", "target", "target_port"];
const edgeKey = (edge) => EDGE_KEYS.map((key) => edge[key]).join("\u0000");

/**
 * `{nodes, edges}` for a read-only React Flow: nodes `{id, position, data: {node, mark}}` and
 * edges `{id, source, target, data: {mark}}`; `mark` is "added", "removed", "changed",
 * "moved" or "same". `older` and `newer` are documents, `diff` the server's from older to newer.
 */
export function unionGraph(older, newer, diff) {
  const marks = new Map();
  for (const id of diff.nodes.moved) marks.set(id, "moved");
  for (const entry of diff.nodes.changed) marks.set(entry.id, "changed");
  for (const id of diff.nodes.added) marks.set(id, "added");
  for (const id of diff.nodes.removed) marks.set(id, "removed");
  const removed = new Set(diff.nodes.removed);
  const shown = [...newer.nodes, ...older.nodes.filter((node) => removed.has(node.id))];
  const nodes = shown.map((node) => ({
    id: node.id,
    type: "version",
    position: { x: node.position?.x ?? 0, y: node.position?.y ?? 0 },
    data: { node, mark: marks.get(node.id) ?? "same" },
    draggable: false,
    connectable: false,
  }));
  const added = new Set(diff.edges.added.map(edgeKey));
  const gone = new Set(diff.edges.removed.map(edgeKey));
  const edges = [...newer.edges, ...older.edges.filter((edge) => gone.has(edgeKey(edge)))].map(
    (edge) => {
      const key = edgeKey(edge);
      const mark = added.has(key) ? "added" : gone.has(key) ? "removed" : "same";
      return {
        id: key,
        source: edge.source,
        target: edge.target,
        data: { mark },
        className: `pw-version-edge is-${mark}`,
      };
    },
  );
  return { nodes, edges };
}

/** How many things differ, by kind, for the view's heading: "2 added, 1 changed, 1 removed". */
export function countsLine(diff) {
  const count = (kind) =>
    diff.nodes[kind].length + (kind === "changed" ? 0 : (diff.edges[kind]?.length ?? 0));
  const parts = ["added", "changed", "removed"]
    .map((kind) => [kind, count(kind)])
    .filter(([, n]) => n > 0);
  const extra =
    diff.pipeline.length +
    diff.notes.added.length +
    diff.notes.removed.length +
    diff.notes.changed.length +
    diff.groups.added.length +
    diff.groups.removed.length +
    diff.groups.changed.length;
  if (extra) parts.push(["other changes", extra]);
  return parts.length ? parts.map(([kind, n]) => `${n} ${kind}`).join(", ") : "no changes";
}

/** A value as the side-by-side table shows it: JSON, or "—" where there is none. */
export function shownValue(value) {
  if (value === null || value === undefined) return "—";
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}
