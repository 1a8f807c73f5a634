// The operator catalog (`GET /api/operators`) as the editor uses it: by name, by kind, ports,
// and the status sets the server sends with it.

import { statusSets } from "./statuses.js";
import { INLINED, subpipelinePorts } from "../subpipelines/subpipelines.js";

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
 * `{items, byName, typeOf(name), portsOf(node), statuses, checks}` from the answer's `items`,
 * `statuses` (made into sets by document/statuses.js) and `checks` (the JSON Schema of a
 * node's data tests); `nodeTypeOf(kind)` names node types.
 * `portsOf` follows a node's params where its operator says how (`outputs_from`: route).
 */
export function createCatalog(items, nodeTypeOf, statuses, checks = null) {
  const byName = new Map(items.map((item) => [item.name, item]));
  return {
    items,
    byName,
    statuses: statusSets(statuses),
    checks,
    typeOf: (name) => nodeTypeOf(byName.get(name)?.kind ?? "unknown"),
    portsOf: (node) => nodePorts(byName.get(node.data.operator), node.data.params),
  };
}

/**
 * A node's ports: its operator's, with the outputs named by a list param's items when the
 * operator declares `outputs_from` (one per item's `key`, then `after`), as the server's
 * `Operator.ports` names them. Items whose name is empty, repeated or one of `after` get no
 * port: the server refuses them, and an edge to such a port is drawn as stray.
 */
export function nodePorts(entry, params) {
  if (!entry) return UNKNOWN_PORTS;
  if (INLINED.has(entry.name)) return subpipelinePorts(entry, params);
  const from = entry.outputs_from;
  if (!from) return entry;
  const items = Array.isArray(params?.[from.param]) ? params[from.param] : [];
  const names = [];
  for (const item of items) {
    const name = item?.[from.key];
    if (typeof name === "string" && name && !names.includes(name) && !from.after.includes(name))
      names.push(name);
  }
  const outputs = [...names, ...from.after].map((name) => ({
    name,
    many: false,
    required: true,
    description: "",
  }));
  return { ...entry, outputs };
}

/**
 * Catalog entries matching a search (title, name, description or the operator's `keywords`:
 * "crosstab" finds pivot), grouped by kind; in a group, those whose title or name has every
 * word come first ("join" picks Join before an operator that only mentions joins), then
 * those whose keywords have them.
 */
export function paletteGroups(items, search) {
  const words = search.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const hasAll = (text) => words.every((word) => text.toLowerCase().includes(word));
  const rank = (item) => {
    if (hasAll(`${item.title} ${item.name}`)) return 0;
    if (hasAll(`${item.title} ${item.name} ${(item.keywords ?? []).join(" ")}`)) return 1;
    if (hasAll(`${item.title} ${item.name} ${item.description} ${(item.keywords ?? []).join(" ")}`))
      return 2;
    return null;
  };
  const ranked = items
    .map((item, index) => ({ item, index, rank: rank(item) }))
    .filter((entry) => entry.rank !== null)
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((entry) => entry.item);
  return KINDS.map(({ kind, title }) => ({
    kind,
    title,
    items: ranked.filter((item) => item.kind === kind),
  })).filter((group) => group.items.length);
}
