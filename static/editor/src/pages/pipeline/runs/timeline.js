// A run's timeline (a Gantt chart) laid out: one row per node, one bar per attempt from its
// start to its end, on a time axis from the first attempt's start to the run's end, or to now
// while the run goes on (an attempt still running ends at now, and grows). Pure: the panel only draws it.

import { durationLabel } from "./durations.js";

const TICK_STEPS_S = [
  0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900,
  1800, 3600, 7200,
];
const MAX_TICKS = 8;

/**
 * `{durationS, rows, ticks, attempts}` for `run` (runs/runState.js) at `now` (ms since the
 * epoch); `live`: whether the run still goes on; `labels`: node id → label. A row is
 * `{id, label, status, bars}`, rows with bars first, by their first start; a bar is
 * `{attempt, status, left, width, durationS, open}` with `left` and `width` as shares of the
 * axis (0..1); a tick is `{at, label}`.
 */
export function timelineLayout(run, { now, live, labels = {} }) {
  let earliest = Infinity;
  let latest = -Infinity;
  for (const node of Object.values(run.nodes)) {
    for (const span of node.spans ?? []) {
      for (const time of timesOf(span)) {
        if (Number.isFinite(time))
          [earliest, latest] = [Math.min(earliest, time), Math.max(latest, time)];
      }
    }
  }
  // From the first attempt's start, not the run's: a past run's start is when a worker took
  // it (its process starts after), a live one's when the process said so.
  const start = firstOf(earliest, ms(run.startedAt));
  const end = live ? Math.max(now, latest) : firstOf(ms(run.finishedAt), latest);
  const origin = Number.isFinite(start) ? start : now;
  const total = Number.isFinite(end) ? Math.max(end - origin, 0) : 0;
  const openEnd = Number.isFinite(end) ? end : origin;
  const order = new Map((run.order ?? []).map((id, index) => [id, index]));
  let attempts = 0;
  const rows = Object.entries(run.nodes).map(([id, node]) => {
    const bars = (node.spans ?? []).map((span) => {
      const [started, finished] = timesOf(span);
      const from = firstOf(started, origin);
      const to = span.finished_at ? firstOf(finished, from) : Math.max(openEnd, from);
      return {
        attempt: span.attempt,
        status: span.status,
        left: total ? (from - origin) / total : 0,
        width: total ? (to - from) / total : 0,
        durationS: (to - from) / 1000,
        open: !span.finished_at,
        from,
      };
    });
    attempts += bars.length;
    return {
      id,
      label: labels[id] || id,
      status: node.status,
      bars,
      first: bars.length ? bars[0].from : Infinity,
    };
  });
  rows.sort(
    (a, b) =>
      a.first - b.first ||
      (order.get(a.id) ?? Infinity) - (order.get(b.id) ?? Infinity) ||
      (a.id < b.id ? -1 : 1),
  );
  return { durationS: total / 1000, rows, ticks: axisTicks(total / 1000), attempts };
}

/** What the chart shows, in words: its accessible name. */
export function timelineSummary(layout, run) {
  const counts = {};
  for (const row of layout.rows) counts[row.status] = (counts[row.status] ?? 0) + 1;
  const retried = layout.rows.filter((row) => row.bars.length > 1).length;
  const statuses = Object.entries(counts)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([status, count]) => `${count} ${status.replace("_", " ")}`)
    .join(", ");
  const name = run.number != null ? `run #${run.number}` : "the run";
  const plural = (count, word) => `${count} ${word}${count === 1 ? "" : "s"}`;
  return `Timeline of ${name}, ${durationLabel("nodes", layout.durationS).text}: ${plural(layout.rows.length, "node")}, ${plural(layout.attempts, "attempt")}${retried ? ` (${retried} retried)` : ""}; ${statuses || "nothing ran yet"}.`;
}

/** Ticks at a round step, at most MAX_TICKS of them, from 0 to `seconds`. */
export function axisTicks(seconds) {
  if (!(seconds > 0)) return [{ at: 0, label: "0 s" }];
  const step =
    TICK_STEPS_S.find((candidate) => seconds / candidate <= MAX_TICKS) ??
    Math.ceil(seconds / MAX_TICKS / 3600) * 3600;
  const ticks = [];
  for (let index = 0; index * step <= seconds + 1e-9; index += 1) {
    const at = index * step;
    ticks.push({ at: at / seconds, label: tickLabel(at, step) });
  }
  return ticks;
}

function tickLabel(seconds, step) {
  if (seconds === 0) return "0 s";
  if (step < 1) return `${Number(seconds.toFixed(3))} s`;
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  const rest = Math.round(seconds - minutes * 60);
  return rest ? `${minutes} min ${rest} s` : `${minutes} min`;
}

// Spans never change (a new state has new ones), so each is parsed once: a live chart of
// 1,000 nodes is laid out again four times a second.
const parsedTimes = new WeakMap();

/** `[start, end]` of a span in ms since the epoch (NaN: not known). */
function timesOf(span) {
  let times = parsedTimes.get(span);
  if (!times) {
    times = [ms(span.started_at), ms(span.finished_at)];
    parsedTimes.set(span, times);
  }
  return times;
}

function ms(iso) {
  return iso ? Date.parse(iso) : NaN;
}

function firstOf(...values) {
  return values.find(Number.isFinite) ?? NaN;
}
