// A node card's one-line summary: the operator's `summary` template (the catalog's, declared
// once in Python: runtime/contract.py) filled with the node's params as they are typed.

const PLACEHOLDER = /\{([a-z_][a-z0-9_]*)(?:\.([a-z_][a-z0-9_]*))?\}/gi;

/**
 * `template` filled from `params`: `{name}` is a param (a list joins its items with ", ", an
 * object reads `key → value`), `{name.part}` that part of each item; a `[...]` section is
 * dropped while a param in it is empty. A param left unset reads as its default in
 * `paramsSchema` once any param is set (a pivot is a "sum of ...", as it will run).
 */
export function summaryText(template, params, paramsSchema) {
  if (!template) return "";
  const set = params && Object.keys(params).length;
  const shown = set ? { ...defaultsOf(paramsSchema), ...setParams(params) } : (params ?? {});
  const sections = template.replace(/\[([^\]]*)\]/g, (_, inner) => {
    const filled = fill(inner, shown);
    return filled === null ? "" : filled;
  });
  const text = fill(sections, shown, true);
  return (text ?? "").replace(/\s+/g, " ").trim();
}

/** `text` with its placeholders filled, or null if one is empty (unless `lenient`). */
function fill(text, params, lenient = false) {
  let empty = false;
  let any = false;
  let placeholders = 0;
  const filled = text.replace(PLACEHOLDER, (_, name, part) => {
    const shown = shownValue(params[name], part);
    placeholders += 1;
    if (shown === "") empty = true;
    else any = true;
    return shown;
  });
  if (empty && !lenient) return null;
  if (placeholders && !any) return ""; // only the template's words ("of by"): nothing set
  return empty && !/[^\s:·,=→()]/.test(filled) ? "" : filled;
}

/** `params` without the ones left empty (a cleared select is `null` or `""`, not its default). */
function setParams(params) {
  return Object.fromEntries(
    Object.entries(params).filter(
      ([, value]) => value !== undefined && value !== null && value !== "",
    ),
  );
}

/** The top-level defaults of a params schema that are scalars (lists read as unset). */
function defaultsOf(paramsSchema) {
  const defaults = {};
  for (const [name, field] of Object.entries(paramsSchema?.properties ?? {})) {
    const value = field?.default;
    if (value !== undefined && value !== null && typeof value !== "object") defaults[name] = value;
  }
  return defaults;
}

function shownValue(value, part) {
  if (value === undefined || value === null) return "";
  if (Array.isArray(value)) {
    const items = part ? value.map((item) => item?.[part]) : value;
    return items
      .filter((item) => item !== undefined && item !== null && item !== "")
      .map(scalar)
      .join(", ");
  }
  if (typeof value === "object") {
    if (part) return shownValue(value[part]);
    return Object.entries(value)
      .map(([key, item]) => `${key} → ${scalar(item)}`)
      .join(", ");
  }
  return scalar(value);
}

function scalar(value) {
  return typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
}
