// Which params name columns or hold expressions, and the columns they may name: a field's JSON
// Schema says `format: "column"` or `"expression"` and `x-port` (the input port it reads), on
// a list's items or a dict's keys (runtime/operators/column_params.py). Pure functions.

import { resolveSchema, splitNullable } from "./schemaForm.js";

/** `{format, port}` of a schema that names columns or holds an expression, else null. */
export function portReference(schema, root) {
  const { schema: field } = splitNullable(schema ?? {}, root);
  if ((field.format === "column" || field.format === "expression") && field["x-port"]) {
    return { format: field.format, port: field["x-port"] };
  }
  return null;
}

/** The `portReference` of a list field's items. */
export function itemReference(field, root) {
  return portReference(resolveSchema(field.items ?? {}, root), root);
}

/** The `portReference` of a dict field's names. */
export function keyReference(field, root) {
  return portReference(field.propertyNames ?? {}, root);
}

/**
 * The columns arriving at input `port` of a node (`schemas`: the analysis' `{inputs,
 * outputs, views}` of that node), each once: `[{name, type, nullable}]`; null when not known
 * yet. A port with several edges (union) lists the columns of each of its tables; a name that
 * is no port's is a view the operator gives (a join's `joined` row, for its condition); `*` is
 * the node's first input, whatever its params name it (a loop's).
 */
export function portColumns(schemas, port) {
  const first = port === "*" ? Object.values(schemas?.inputs ?? {})[0] : undefined;
  const value = first ?? schemas?.inputs?.[port] ?? schemas?.views?.[port];
  if (!value) return null;
  const tables = Array.isArray(value[0]) || value[0] === null ? value : [value];
  const known = tables.filter(Boolean);
  if (!known.length) return null;
  const byName = new Map();
  for (const column of known.flat()) if (!byName.has(column.name)) byName.set(column.name, column);
  return [...byName.values()];
}

/** The columns whose name contains `query` (any case), those starting with it first. */
export function matchingColumns(columns, query) {
  const wanted = query.trim().toLowerCase();
  if (!wanted) return columns;
  const found = columns.filter((column) => column.name.toLowerCase().includes(wanted));
  const starts = (column) => column.name.toLowerCase().startsWith(wanted);
  return [...found.filter(starts), ...found.filter((column) => !starts(column))];
}
