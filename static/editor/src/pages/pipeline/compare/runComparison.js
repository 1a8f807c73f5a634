// Two runs side by side, as the comparison view shows them (from `GET /api/runs/compare`, the
// one definition of what differs): figures with their change, column changes in words, how a
// node is marked, which columns can be keys, and which two runs to compare first.

import { formatCount, formatDuration } from "../../../lib/format.js";

const MINUS = "\u2212";

/** `{a, b}` run ids to compare first: the run viewed (else the latest) and the one before it. */
export function defaultPair(runs, viewedId) {
  if (!runs?.length) return null;
  const index = Math.max(
    0,
    runs.findIndex((run) => run.id === viewedId),
  );
  const newer = runs[index];
  const older = runs[index + 1] ?? runs[index];
  return { a: older.id, b: newer.id };
}

/** The URL of the comparison; `keys` a list of column names (each may hold any character but
 * a comma), `node` the output whose rows to compare. */
export function compareUrl(a, b, keys = [], node = null) {
  const query = new URLSearchParams({ a: String(a), b: String(b) });
  if (keys.length) query.set("keys", keys.join(","));
  if (node) query.set("node", node);
  return `/api/runs/compare?${query}`;
}

/** "3 → 2 (−1)", "3" when unchanged, "–" when neither run knows it. */
export function countChange(a, b) {
  return change(a, b, formatCount, (difference) => formatCount(Math.abs(difference)));
}

/** "120 ms → 80 ms (−40 ms)", or one duration when the runs took the same. */
export function durationChange(a, b) {
  return change(a, b, formatDuration, (difference) => formatDuration(Math.abs(difference)));
}

function change(a, b, shown, size) {
  const known = (value) => typeof value === "number";
  if (!known(a) && !known(b)) return "–";
  if (known(a) && known(b) && a === b) return shown(a);
  const line = `${shown(a)} → ${shown(b)}`;
  if (!known(a) || !known(b)) return line;
  return `${line} (${b > a ? "+" : MINUS}${size(b - a)})`;
}

/** The sign of a figure's change, for styling: "up", "down" or "" (same, or not known). */
export function direction(a, b) {
  if (typeof a !== "number" || typeof b !== "number" || a === b) return "";
  return b > a ? "up" : "down";
}

/** Column changes in words: ["+band (string)", "−name (string)", "age: integer → float"]. */
export function columnChangeLines(changes) {
  if (!changes) return [];
  return [
    ...changes.added.map((column) => `+${column.name} (${column.type})`),
    ...changes.removed.map((column) => `${MINUS}${column.name} (${column.type})`),
    ...changes.changed.map((column) => `${column.name}: ${column.from} → ${column.to}`),
  ];
}

/** How a node differs: "added" (only in b), "removed" (only in a), "changed" (its document,
 * status, rows or columns differ) or "same". */
export function nodeMark(entry) {
  if (entry.presence === "b") return "added";
  if (entry.presence === "a") return "removed";
  const { a, b } = entry;
  const figures = ["status", "rows_in", "rows_out"].some((name) => a?.[name] !== b?.[name]);
  const columns = entry.results.some(
    (result) => columnChangeLines(result.column_changes).length > 0,
  );
  return entry.changes.length || figures || columns ? "changed" : "same";
}

/** The columns an output's rows can be matched by: those both runs' kept results have (in
 * b's order), else those of the one that is kept. */
export function keyCandidates(entry) {
  const result = entry.results[0];
  if (!result) return [];
  const names = (side) => (result[side]?.columns ?? []).map((column) => column.name);
  const [a, b] = [names("a"), names("b")];
  if (a.length && b.length) return b.filter((name) => a.includes(name));
  return a.length ? a : b;
}

/** "1 added · 2 removed · 3 changed · 40 unchanged" for a compared output. */
export function rowCountsLine(rows) {
  return ["added", "removed", "changed", "unchanged"]
    .map((kind) => `${formatCount(rows[kind])} ${kind}`)
    .join(" · ");
}

/** A sample value (not null: the view marks nulls apart) as a cell shows it: text as it is,
 * anything else as JSON. */
export function cellText(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}
