// A node card's one-line summary: the operator's `summary` template (the catalog's, declared
// once in Python: runtime/contract.py) filled with the node's params as they are typed.

const PLACEHOLDER = /\{([a-z_][a-z0-9_]*)(?:\.([a-z_][a-z0-9_]*))?\}/gi;

/**
 * `template` filled from `params`: `{name}` is a param (a list joins its items with ", ", an
 * object reads `key → value`), `{name.part}` that part of each item; a `[...]` section is
 * dropped while a param in it is empty. "" when nothing is set.
 */
export function summaryText(template, params) {
  if (!template) return "";
  const sections = template.replace(/\[([^\]]*)\]/g, (_, inner) => {
    const filled = fill(inner, params ?? {});
    return filled === null ? "" : filled;
  });
  const text = fill(sections, params ?? {}, true);
  return (text ?? "").replace(/\s+/g, " ").trim();
}

/** `text` with its placeholders filled, or null if one is empty (unless `lenient`). */
function fill(text, params, lenient = false) {
  let empty = false;
  const filled = text.replace(PLACEHOLDER, (_, name, part) => {
    const shown = shownValue(params[name], part);
    if (shown === "") empty = true;
    return shown;
  });
  if (empty && !lenient) return null;
  return empty && !/[^\s:·,=→()]/.test(filled) ? "" : filled;
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
