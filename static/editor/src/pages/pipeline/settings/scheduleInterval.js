// "Every N minutes / hours", as Node-RED's inject and n8n's schedule offer it, written as the
// cron expression the server keeps. Only steps that divide the hour (or the day) are offered:
// cron's `*/N` restarts at each hour (day), so "every 7 minutes" would not be regular.

export const STEPS = {
  minutes: [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30],
  hours: [1, 2, 3, 4, 6, 8, 12],
};

/** The cron expression of "every `every` `unit`" (`unit`: "minutes" or "hours"; hours fire
 * on the hour). */
export function cronOfInterval({ every, unit }) {
  const step = Number(every) === 1 ? "*" : `*/${every}`;
  return unit === "hours" ? `0 ${step} * * *` : `${step} * * * *`;
}

/** `{every, unit}` when `cron` is one that `cronOfInterval` writes, else null (a cron the
 * interval form cannot show, edited as cron). */
export function intervalOfCron(cron) {
  const fields = String(cron ?? "")
    .trim()
    .split(/\s+/);
  if (fields.length !== 5 || fields.slice(2).some((field) => field !== "*")) return null;
  const [minute, hour] = fields;
  const stepOf = (field) => (field === "*" ? 1 : Number((/^\*\/(\d+)$/.exec(field) ?? [])[1]));
  if (hour === "*" && minute !== "0") {
    const every = stepOf(minute);
    return STEPS.minutes.includes(every) ? { every, unit: "minutes" } : null;
  }
  if (minute === "0") {
    const every = stepOf(hour);
    return STEPS.hours.includes(every) ? { every, unit: "hours" } : null;
  }
  return null;
}

/** How a schedule's list entry names its times: "every 15 minutes", else the cron. */
export function describeCron(cron) {
  const interval = intervalOfCron(cron);
  if (!interval) return cron;
  const unit = interval.every === 1 ? interval.unit.slice(0, -1) : interval.unit;
  return interval.every === 1 ? `every ${unit}` : `every ${interval.every} ${unit}`;
}
