// The pipeline document (the server's shape: what it validates, saves, runs and exports)
// to and from what the canvas holds. Nothing else knows both shapes. Everything besides the
// nodes and edges (settings, notes, groups, fields of later versions) stays in `meta` as the
// server sent it, so a save writes back what the canvas does not draw.

import { framedGroups } from "./canvasItems.js";
import { makeEdge } from "./graph.js";

// The fields the server answers beside the document and does not take back (a save's and a
// restore's answer carry what the save found: `problems`, `schemas`; a merged save's, what
// it merged: `merged`).
const READ_ONLY = new Set([
  "id",
  "revision",
  "owner",
  "workspace",
  "created_at",
  "updated_at",
  "last_run",
  "problems",
  "schemas",
  "merged",
]);

/** `{meta, nodes, edges}` for the canvas; `typeOf(operator)` picks each node's React Flow type. */
export function documentToCanvas(document, typeOf) {
  const meta = {};
  for (const [key, value] of Object.entries(document)) {
    if (key !== "nodes" && key !== "edges" && !READ_ONLY.has(key)) meta[key] = value;
  }
  const nodes = (document.nodes ?? []).map((node) => ({
    id: node.id,
    type: typeOf(node.operator),
    position: { x: node.position?.x ?? 0, y: node.position?.y ?? 0 },
    data: {
      operator: node.operator,
      label: node.label ?? "",
      params: node.params ?? {},
      retries: node.retries ?? null,
      timeout_s: node.timeout_s ?? null,
      expect: node.expect ?? [],
    },
  }));
  const edges = (document.edges ?? []).map((edge) =>
    makeEdge({
      source: edge.source,
      sourceHandle: edge.source_port ?? "out",
      target: edge.target,
      targetHandle: edge.target_port ?? "in",
    }),
  );
  return { meta, nodes, edges };
}

/**
 * The document the canvas shows, nodes sorted by id and edges by their four ends. With
 * `sizeOf(node)` (a card's `{width, height}`), each group's box is its frame around its nodes.
 */
export function canvasToDocument(meta, nodes, edges, sizeOf = null) {
  const documentNodes = nodes
    .map((node) => ({
      id: node.id,
      operator: node.data.operator,
      label: node.data.label ?? "",
      params: node.data.params ?? {},
      position: { x: Math.round(node.position.x), y: Math.round(node.position.y) },
      retries: node.data.retries ?? null,
      timeout_s: node.data.timeout_s ?? null,
      ...(node.data.expect?.length ? { expect: node.data.expect } : {}),
    }))
    .sort((a, b) => compare(a.id, b.id));
  const documentEdges = edges
    .map((edge) => ({
      source: edge.source,
      source_port: edge.sourceHandle,
      target: edge.target,
      target_port: edge.targetHandle,
    }))
    .sort(
      (a, b) =>
        compare(a.source, b.source) ||
        compare(a.source_port, b.source_port) ||
        compare(a.target, b.target) ||
        compare(a.target_port, b.target_port),
    );
  const document = { ...meta, nodes: documentNodes, edges: documentEdges };
  if (Array.isArray(meta.groups)) {
    const groups = framing(meta.groups, documentNodes);
    document.groups = sizeOf ? framedGroups(groups, nodes, sizeOf) : groups;
  }
  return document;
}

/** `groups`, each framing only nodes still on the canvas: a deleted node leaves its group. */
function framing(groups, nodes) {
  const ids = new Set(nodes.map((node) => node.id));
  return groups.map((group) =>
    Array.isArray(group.nodes)
      ? { ...group, nodes: group.nodes.filter((id) => ids.has(id)) }
      : group,
  );
}

function compare(a, b) {
  if (a < b) return -1;
  return a > b ? 1 : 0;
}

const NAME_MAX_LENGTH = 200; // runtime/spec.py

/** The name of a copy of the pipeline `name` that keeps the user's version: "… (my copy)",
 * within the length a name may have. */
export function copyName(name) {
  const suffix = " (my copy)";
  return `${(name ?? "").slice(0, NAME_MAX_LENGTH - suffix.length)}${suffix}`;
}
