// JSON text of a value with every object's keys sorted, so that two equal documents give the
// same text whatever order their keys were written in: a key to compare them by.

/** `value` as JSON text with sorted keys (undefined as null). */
export function stableText(value) {
  if (Array.isArray(value)) return `[${value.map(stableText).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableText(value[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}
