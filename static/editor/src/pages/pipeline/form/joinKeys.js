// Keys a join may match on before any is chosen: the columns both of its inputs have, as
// KNIME's joiner proposes them, so that the common case is one click. Pure functions.

import { portColumns } from "./columnFields.js";

const MOST_OFFERED = 3;
const KEY_LIKE = /(^id$|_id$|^id_|_key$|^key$|code$)/i;

/** Column names both inputs of a join have, key-like names (id, *_id, *_key, *code) first;
 * empty while either input's columns are unknown or a key is already chosen. */
export function sharedKeys(params, schemas) {
  if (params?.left_on?.length || params?.right_on?.length) return [];
  const left = portColumns(schemas, "left");
  const right = portColumns(schemas, "right");
  if (!left || !right) return [];
  const rightNames = new Set(right.map((column) => column.name));
  const shared = left.map((column) => column.name).filter((name) => rightNames.has(name));
  const keyLike = (name) => (KEY_LIKE.test(name) ? 0 : 1);
  return shared
    .map((name, index) => ({ name, index }))
    .sort((a, b) => keyLike(a.name) - keyLike(b.name) || a.index - b.index)
    .slice(0, MOST_OFFERED)
    .map(({ name }) => name);
}

/** The params of a join matched on `name` on both sides. */
export function joinedOn(params, name) {
  return { ...params, left_on: [name], right_on: [name] };
}
