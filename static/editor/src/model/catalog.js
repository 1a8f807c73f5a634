// The operator catalog (`GET /api/operators`) as the editor uses it: by name, by kind, ports,
// and the status sets the server sends with it.

import { statusSets } from "./statuses.js";

export const KINDS = [
  { kind: "input", title: "Inputs" },
  { kind: "process", title: "Processing" },
  { kind: "output", title: "Outputs" },
];

const UNKNOWN_PORTS = {
  inputs: [{ name: "in", many: true, required: false }],
  outputs: [{ name: "out", many: true, required: false }],
};

/**
 * `{items, byName, typeOf(name), portsOf(node), statuses}` from the answer's `items` and
 * `statuses` (made into sets by model/statuses.js); `nodeTypeOf(kind)` names node types.
 */
export function createCatalog(items, nodeTypeOf, statuses) {
  const byName = new Map(items.map((item) => [item.name, item]));
  return {
    items,
    byName,
    statuses: statusSets(statuses),
    typeOf: (name) => nodeTypeOf(byName.get(name)?.kind ?? "unknown"),
    portsOf: (node) => byName.get(node.data.operator) ?? UNKNOWN_PORTS,
  };
}

/** Catalog entries matching a search (title, name or description), grouped by kind. */
export function paletteGroups(items, search) {
  const words = search.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const matches = items.filter((item) => {
    const text = `${item.title} ${item.name} ${item.description}`.toLowerCase();
    return words.every((word) => text.includes(word));
  });
  return KINDS.map(({ kind, title }) => ({
    kind,
    title,
    items: matches.filter((item) => item.kind === kind),
  })).filter((group) => group.items.length);
}
