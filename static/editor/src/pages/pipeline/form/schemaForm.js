// What the params form needs from an operator's params JSON Schema (pydantic's): which widget
// each field gets, defaults for new rows, and immutable updates of the params value.
// Pure functions; form/SchemaForm.jsx renders with them.

/** `schema` with `$ref`s into the root's `$defs` followed (sibling keys win, as in pydantic). */
export function resolveSchema(schema, root) {
  let current = schema ?? {};
  for (let depth = 0; current.$ref && depth < 32; depth += 1) {
    const name = current.$ref.replace(/^#\/(\$defs|definitions)\//, "");
    const target = root?.$defs?.[name] ?? root?.definitions?.[name] ?? {};
    const { $ref: _ref, ...siblings } = current;
    current = { ...target, ...siblings };
  }
  return current;
}

/** `{schema, nullable}`: an `anyOf` of one type and null becomes that type, marked nullable. */
export function splitNullable(schema, root) {
  const resolved = resolveSchema(schema, root);
  if (Array.isArray(resolved.anyOf)) {
    const options = resolved.anyOf.map((option) => resolveSchema(option, root));
    const real = options.filter((option) => option.type !== "null");
    if (real.length === 1 && real.length < options.length) {
      const { anyOf: _anyOf, ...outer } = resolved;
      return { schema: { ...real[0], ...outer }, nullable: true };
    }
    if (real.length < options.length) {
      const { anyOf: _anyOf, ...outer } = resolved;
      return { schema: { ...outer, anyOf: real }, nullable: true };
    }
  }
  return { schema: resolved, nullable: false };
}

/** The allowed values of an enum-like schema (`enum`, `const`, or an anyOf of those), or null. */
export function enumOptions(schema, root) {
  const resolved = resolveSchema(schema, root);
  if (Array.isArray(resolved.enum)) return resolved.enum;
  if (resolved.const !== undefined) return [resolved.const];
  const options = resolved.anyOf ?? resolved.oneOf;
  if (Array.isArray(options) && options.length) {
    const values = [];
    for (const option of options) {
      const inner = enumOptions(option, root);
      if (!inner) return null;
      values.push(...inner);
    }
    return values;
  }
  return null;
}

const SCALAR_TYPES = new Set(["string", "integer", "number", "boolean", "null"]);

function isScalarUnion(schema, root) {
  const options = schema.anyOf ?? schema.oneOf;
  return (
    Array.isArray(options) &&
    options.every((option) => SCALAR_TYPES.has(resolveSchema(option, root).type))
  );
}

/** The schema a dict's values follow (`additionalProperties` or `patternProperties`), or null. */
export function dictValueSchema(schema) {
  if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
    return schema.additionalProperties;
  }
  const patterns = Object.values(schema.patternProperties ?? {});
  if (patterns.length) return patterns[0];
  if (schema.additionalProperties === true) return {};
  return null;
}

/** The variants of a discriminated union of objects: `{prop, variants: [{tag, title, schema}]}`. */
export function unionVariants(schema, root) {
  const resolved = resolveSchema(schema, root);
  const options = (resolved.oneOf ?? resolved.anyOf ?? []).map((option) =>
    resolveSchema(option, root),
  );
  if (options.length < 2 || !options.every((option) => option.properties)) return null;
  let prop = resolved.discriminator?.propertyName;
  if (!prop) {
    prop = Object.keys(options[0].properties).find((name) =>
      options.every((option) => option.properties[name]?.const !== undefined),
    );
  }
  if (!prop) return null;
  const variants = options.map((option) => ({
    tag:
      resolveSchema(option.properties[prop], root).const ??
      resolveSchema(option.properties[prop], root).enum?.[0],
    title: option.title ?? null,
    description: option.description ?? "",
    schema: option,
  }));
  return variants.every((variant) => variant.tag !== undefined) ? { prop, variants } : null;
}

/**
 * The widget a field gets: text, column (a name of an input's column), expression, sql, path,
 * connection (a name of the workspace's database connections), integer, number, boolean, enum, scalar (a value of several scalar types), stringList,
 * columnList, scalarList, objectList, unionList, dict, object or json (anything else, edited
 * as JSON).
 */
export function fieldKind(schema, root) {
  const { schema: field } = splitNullable(schema, root);
  if (enumOptions(field, root)) return "enum";
  if (field.type === "boolean") return "boolean";
  if (field.type === "integer") return "integer";
  if (field.type === "number") return "number";
  if (field.type === "string") {
    if (field.format === "expression") return "expression";
    if (field.format === "column") return "column";
    if (field.format === "sql") return "sql";
    if (field.format === "path") return "path";
    if (field.format === "connection") return "connection";
    return "text";
  }
  if (field.type === "array") {
    const item = splitNullable(field.items ?? {}, root).schema;
    if (unionVariants(item, root)) return "unionList";
    if (item.type === "object" || item.properties) return "objectList";
    if (item.type === "string" && item.format === "column") return "columnList";
    if (item.type === "string" && !enumOptions(item, root)) return "stringList";
    return "scalarList";
  }
  if (field.type === "object" || field.properties || field.patternProperties) {
    if (field.properties && Object.keys(field.properties).length) return "object";
    if (dictValueSchema(field)) return "dict";
    return "json";
  }
  if (isScalarUnion(field, root)) return "scalar";
  return "json";
}

/** A starting value for a new list item or dict entry of this schema. */
export function defaultValue(schema, root) {
  const { schema: field, nullable } = splitNullable(schema, root);
  if (field.default !== undefined) return structuredClone(field.default);
  const variants = field.type === undefined ? unionVariants(field, root) : null;
  if (variants) return defaultValue(variants.variants[0].schema, root);
  const options = enumOptions(field, root);
  if (options) return options[0];
  if (nullable) return null;
  switch (field.type) {
    case "string":
      return "";
    case "integer":
    case "number":
      return 0;
    case "boolean":
      return false;
    case "array":
      return [];
    case "object": {
      const value = {};
      for (const name of field.required ?? []) {
        value[name] = defaultValue(field.properties?.[name] ?? {}, root);
      }
      return value;
    }
    default:
      return "";
  }
}

/** Whether an object field is shown folded, as a button that opens it: it may be left out
 * (not required, or nullable) and has no value yet. Its own required fields (an incremental
 * input's "Read") are then not shown, so they do not look required of every node. */
export function foldedObject(value, required, nullable) {
  return (!required || nullable) && (value === undefined || value === null);
}

/** `value` with the item at `path` (keys and indexes) set; `undefined` removes an object key. */
export function setIn(value, path, next) {
  if (!path.length) return next;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    copy[head] = setIn(value[head], rest, next);
    return copy;
  }
  const base = value && typeof value === "object" ? value : {};
  const child = setIn(base[head], rest, next);
  if (child === undefined) {
    const { [head]: _removed, ...others } = base;
    return others;
  }
  return { ...base, [head]: child };
}

/** Text typed for a value of several scalar types: a number, true/false, else the text. */
export function parseScalar(text) {
  if (text === "") return undefined;
  if (text === "true") return true;
  if (text === "false") return false;
  if (text === "null") return null;
  if (/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text.trim())) return Number(text);
  return text;
}

/** A number typed into a number field, or undefined when empty or not a number. */
export function parseNumber(text, integer) {
  if (text === "" || text === null || text === undefined) return undefined;
  const number = Number(text);
  if (!Number.isFinite(number)) return undefined;
  return integer ? Math.trunc(number) : number;
}

/** A scalar shown in a text box. */
export function scalarText(value) {
  return value === undefined || value === null ? "" : String(value);
}

/** A dict as editable rows `[{key, value}]`, in its key order. */
export function rowsFromDict(dict) {
  return Object.entries(dict ?? {}).map(([key, value]) => ({ key, value }));
}

/** Rows back to a dict: rows without a key are left out; a later duplicate key wins. */
export function dictFromRows(rows) {
  const dict = {};
  for (const row of rows) if (row.key !== "") dict[row.key] = row.value;
  return dict;
}

/** The dotted path that server problems use for a field (`mappings.1.expression`). */
export function pathKey(path) {
  return path.join(".");
}

/** A parameter value typed as text: JSON when it parses (18, true, [1, 2]), else the text. */
export function parseJsonish(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A parameter value as text for `parseJsonish`: strings as they are, the rest as JSON. */
export function jsonishText(value) {
  return typeof value === "string" ? value : JSON.stringify(value ?? null);
}
