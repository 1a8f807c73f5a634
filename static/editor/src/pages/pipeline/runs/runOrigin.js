// What started a run, in words, for the history's lines and a past run's banner: a person, a
// schedule, a trigger (named, with the event in the title) or an interval of a backfill.

/** "2024-01-01T00:00:00+00:00" → "2024-01-01 00:00" (the interval's own zone, as stored). */
function moment(iso) {
  return String(iso ?? "")
    .slice(0, 16)
    .replace("T", " ");
}

/** `{text, title}` saying what started `run` (an API run); `by`: who started it, as shown
 * ("you", a user name) or null. A person's run is just `by`. */
export function runOrigin(run, by) {
  const from = run.started_from;
  const as = `as ${by ?? "its owner"}`;
  if (run.trigger === "backfill") {
    const which = from ? `backfill ${from.backfill}` : "backfill";
    const interval = from ? ` · ${moment(from.interval_start)} → ${moment(from.interval_end)}` : "";
    return { text: `${which}${interval}`, title: as };
  }
  if (run.trigger === "trigger") {
    const which = from
      ? `triggered by ${from.name || `trigger ${from.trigger}`} (${from.trigger_kind})`
      : null;
    return which
      ? { text: which, title: `${run.triggered_by} · ${as}` }
      : { text: `triggered by ${run.triggered_by}`, title: as };
  }
  if (run.trigger === "schedule") return { text: `scheduled${by ? ` (${by})` : ""}` };
  return by ? { text: by } : null;
}
