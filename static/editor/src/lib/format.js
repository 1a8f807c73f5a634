// How numbers, durations and times read in the editor.

// One formatter for the whole page: toLocaleString builds a new one on every call, which
// costs ~0.1 ms per node card when a run updates a thousand of them.
const COUNT = new Intl.NumberFormat("en-US");

/** 1234567 → "1,234,567"; null → "–". */
export function formatCount(value) {
  return typeof value === "number" ? COUNT.format(value) : "–";
}

/** Seconds as "850 ms", "3.4 s" or "2 min 5 s". */
export function formatDuration(seconds) {
  if (typeof seconds !== "number" || Number.isNaN(seconds)) return "–";
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 2 : 1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}

/** Rows per second, shortened: "12.3k rows/s" (or "12.3k/s" with `unit` "/s", on cards). */
export function formatRate(rows, seconds, unit = " rows/s") {
  if (typeof rows !== "number" || typeof seconds !== "number" || seconds <= 0) return null;
  const rate = rows / seconds;
  if (rate >= 1e6) return `${(rate / 1e6).toFixed(1)}M${unit}`;
  if (rate >= 1e3) return `${(rate / 1e3).toFixed(1)}k${unit}`;
  return `${Math.round(rate)}${unit}`;
}

/** An ISO time as "3 min ago" (or a date when older than a week). */
export function timeAgo(iso, now = Date.now()) {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return "";
  const seconds = Math.max(0, Math.round((now - then) / 1000));
  if (seconds < 45) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days < 7) return `${days} d ago`;
  return new Date(then).toLocaleDateString();
}

/** An ISO time as a short local date and time. */
export function formatTime(iso) {
  const then = Date.parse(iso);
  return Number.isNaN(then) ? "" : new Date(then).toLocaleString();
}

/** The sum of a node's rows in (its metrics keep them per input port). */
export function rowsIn(metrics) {
  const values = Object.values(metrics?.rows_in ?? {});
  return values.length ? values.reduce((sum, value) => sum + (value ?? 0), 0) : null;
}

/**
 * The rows an output node wrote: what its operator reports, else, once it has succeeded,
 * every row it read. A node that failed or was cancelled wrote only what it reports.
 */
export function rowsWritten(metrics, status) {
  return metrics?.rows_written ?? (status === "succeeded" ? rowsIn(metrics) : null);
}

/**
 * The rows a finished node's card shows: "6 → 4" (in → out), or "3 written" for an output
 * node, whose rows go to a file or table rather than out of it (the card's legend says
 * "rows"; "rows written" did not fit beside a badge); null when unknown.
 */
export function rowsSummary(kind, metrics, status) {
  if (kind === "output") {
    const written = rowsWritten(metrics, status);
    return written === null ? null : `${formatCount(written)} written`;
  }
  const incoming = rowsIn(metrics);
  const outgoing = metrics?.rows_out ?? null;
  return incoming === null && outgoing === null
    ? null
    : `${formatCount(incoming)} → ${formatCount(outgoing)}`;
}

/** A download's file name from a pipeline's name: without what file systems refuse. */
export function fileName(name, extension) {
  const safe = String(name ?? "")
    // eslint-disable-next-line no-control-regex -- control characters are what is refused here
    .replace(/[\\/:*?"<>|\u0000-\u001f]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return `${safe || "pipeline"}.${extension}`;
}

/** A preview cell as it reads: dates as dates ("2024-01-05"), times without the "T". */
export function formatCell(value, type) {
  if (value === null || value === undefined) return "null";
  if (type !== "date" && type !== "datetime") return String(value);
  const time = typeof value === "number" ? new Date(value).toISOString() : String(value);
  const match = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}:\d{2})(\.\d*[1-9])?\d*)?/.exec(time);
  if (!match) return String(value);
  if (type === "date" || !match[2]) return match[1];
  return `${match[1]} ${match[2]}${match[3] ?? ""}`;
}
