// Column lineage on the canvas: which nodes and edges a column came through (the server's
// `selected` path, GET /api/pipelines/<id>/lineage?node=&column=), as marks the cards and
// edges read from the overlay, and the words the legend and an output's panel show.

/** The key of the edge from `source`'s port `sourcePort` to `target` (either port's edge). */
export const edgeKey = (source, sourcePort, target) =>
  `${source}\u0000${sourcePort}\u0000${target}`;

/** The overlay's marks for a path: `{node, column, nodes: Set, edges: Set of edgeKey}`. */
export function lineageMarks(path) {
  return {
    node: path.column.node,
    column: path.column.column,
    nodes: new Set(path.nodes),
    edges: new Set(path.edges.map((edge) => edgeKey(edge.source, edge.source_port, edge.target))),
  };
}

/** Whether a canvas edge (`{source, sourceHandle, target}`) is on the marked path. */
export function onPath(edge, marks) {
  return marks.edges.has(edgeKey(edge.source, edge.sourceHandle ?? "out", edge.target));
}

/** The edges with those on the path marked (a class and a label); the same array unmarked. */
export function markPathEdges(edges, marks) {
  if (!marks) return edges;
  return edges.map((edge) =>
    onPath(edge, marks)
      ? { ...edge, className: `${edge.className ?? ""} pw-edge-lineage`.trim(), animated: true }
      : { ...edge, className: `${edge.className ?? ""} pw-edge-off-lineage`.trim() },
  );
}

/** A card's class while a path is shown: on it, or dimmed; none otherwise. */
export function lineageClass(marks, id) {
  if (!marks) return "";
  return marks.nodes.has(id) ? " is-lineage" : " is-off-lineage";
}

/** The columns a node's panel offers to trace: its outputs' (an output node: what it writes). */
export function traceableColumns(schemas) {
  const ports = Object.values(schemas?.outputs ?? {});
  const lists = ports.length ? ports : [schemas?.inputs?.in].filter(Boolean);
  const names = lists.flat(2).map((column) => column?.name);
  return [...new Set(names.filter(Boolean))];
}

/** `?node=…&column=…` for the lineage request. */
export const lineageQuery = (node, column) =>
  `?${new URLSearchParams({ node, column }).toString()}`;

/** "users (demo/users.csv): age, amount" for each input that reaches an output or a column
 * (`[{node, source, columns}]`, or a path's `origins` `[{node, column}]` with the nodes). */
export function inputLines(reaching) {
  return reaching.map(
    (input) =>
      `${input.node}${input.source ? ` (${input.source})` : ""}: ${input.columns.join(", ")}`,
  );
}

/** A path's origins grouped by input node, with the file or table each reads. */
export function pathInputs(selected, nodes) {
  const byNode = new Map();
  for (const origin of selected.origins) {
    if (!byNode.has(origin.node)) byNode.set(origin.node, []);
    byNode.get(origin.node).push(origin.column);
  }
  return [...byNode].map(([node, columns]) => ({
    node,
    source: nodes?.[node]?.source ?? null,
    columns,
  }));
}

/** Ask for `column` of `node` to be traced: the legend (LineageLegend.jsx) fetches its path. */
export function askLineage(overlay, node, column) {
  overlay.set((value) => ({ ...value, lineageAsked: { node, column } }));
}

/** Stop showing a column's lineage. */
export function clearLineage(overlay) {
  overlay.set((value) =>
    value.lineageAsked || value.lineage ? { ...value, lineageAsked: null, lineage: null } : value,
  );
}

/** The address that opens pipeline `pipeline` with the column `column` of its node `node` lit. */
export const lineageHref = (pipeline, node, column) =>
  `/pipelines/${pipeline}/?${new URLSearchParams({ lineage_node: node, lineage_column: column }).toString()}`;

/** The column the address asks to light (`?lineage_node=…&lineage_column=…`), or null. */
export function lineageInAddress(search) {
  const query = new URLSearchParams(search);
  const node = query.get("lineage_node");
  const column = query.get("lineage_column");
  return node && column ? { node, column } : null;
}

/** What the legend says of each pipeline upstream a column comes from (the answer's
 * `upstream.hops`, nearest first): "Adults › write › name", the input that read it and the
 * file or table it read, and the address opening that pipeline with the column lit. */
export function upstreamLines(upstream) {
  return (upstream?.hops ?? []).map((hop) => ({
    key: `${hop.pipeline}\u0000${hop.output}\u0000${hop.column}\u0000${hop.reader}`,
    depth: hop.depth,
    input: hop.input,
    via: hop.via,
    from: `${hop.name} › ${hop.output} › ${hop.column}`,
    href: lineageHref(hop.pipeline, hop.output, hop.column),
  }));
}
