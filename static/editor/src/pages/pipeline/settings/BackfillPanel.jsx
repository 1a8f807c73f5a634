// A schedule's backfills, under it in the Schedules section: start one over a date range
// (each interval of the schedule becomes a run with its start and end as two of the
// pipeline's parameters), watch its progress and its calendar of intervals, cancel it, and
// retry its failed intervals (`/api/pipelines/<id>/schedules/<sid>/backfills`).

import { useCallback, useEffect, useState } from "react";
import { FieldMessages } from "../form/Field.jsx";
import "./backfills.css";
import { LabelledField } from "./settingsItems.jsx";

const POLL_MS = 3000;
const STATES = ["succeeded", "running", "waiting", "failed", "cancelled"];

function today(offsetDays = 0) {
  const day = new Date(Date.now() + offsetDays * 86400000);
  return day.toISOString().slice(0, 10);
}

/** The intervals grouped by month ("2024-01") of their start, in order. */
export function byMonth(intervals) {
  const months = new Map();
  for (const interval of intervals) {
    const month = interval.start.slice(0, 7);
    if (!months.has(month)) months.set(month, []);
    months.get(month).push(interval);
  }
  return [...months.entries()];
}

export default function BackfillPanel({ api, base, schedule, readOnly }) {
  const url = `${base}/${schedule.id}/backfills`;
  const [items, setItems] = useState(null);
  const [shown, setShown] = useState(null); // the backfill whose calendar is shown
  const [intervals, setIntervals] = useState([]);
  const [error, setError] = useState(null);
  const reload = useCallback(
    () =>
      api.get(url).then(
        (body) => {
          setItems(body.items);
          setShown((current) => current ?? body.items[0]?.id ?? null);
        },
        (failure) => setError({ message: failure.message }),
      ),
    [api, url],
  );
  useEffect(() => {
    reload();
  }, [reload]);
  const running = items?.some((item) => item.status === "running");
  useEffect(() => {
    if (!running) return undefined;
    const timer = setInterval(reload, POLL_MS);
    return () => clearInterval(timer);
  }, [running, reload]);
  const current = items?.find((item) => item.id === shown);
  const progressKey = current ? JSON.stringify(current.progress) : "";
  useEffect(() => {
    if (!shown) return;
    api.get(`${url}/${shown}/intervals`).then(
      (body) => setIntervals(body.items),
      (failure) => setError({ message: failure.message }),
    );
  }, [api, url, shown, progressKey]);

  const act = async (backfill, verb) => {
    try {
      await api.post(`${url}/${backfill.id}/${verb}`, {});
      await reload();
    } catch (failure) {
      setError({ message: failure.message });
    }
  };
  return (
    <div className="pw-backfills" role="group" aria-label={`Backfills of ${schedule.cron}`}>
      {readOnly ? null : (
        <BackfillForm
          api={api}
          url={url}
          onStarted={(backfill) => {
            setShown(backfill.id);
            reload();
          }}
        />
      )}
      {error ? <FieldMessages messages={[error.message]} /> : null}
      {items?.length === 0 ? <p className="pw-muted">No backfills yet.</p> : null}
      <ul className="pw-backfill-list">
        {items?.map((backfill) => (
          <li key={backfill.id} className={backfill.id === shown ? "pw-backfill-shown" : ""}>
            <button type="button" className="pw-link" onClick={() => setShown(backfill.id)}>
              {backfill.start.slice(0, 10)} → {backfill.end.slice(0, 10)}
            </button>{" "}
            <span className="pw-muted">
              {backfill.status} · {backfill.concurrency} at once · {backfill.owner}
            </span>
            <Progress progress={backfill.progress} />
            {readOnly ? null : (
              <span className="pw-schedule-actions">
                {backfill.status === "running" ? (
                  <button type="button" onClick={() => act(backfill, "cancel")}>
                    Cancel backfill
                  </button>
                ) : null}
                {backfill.progress.failed ? (
                  <button type="button" onClick={() => act(backfill, "retry")}>
                    Retry {backfill.progress.failed} failed
                  </button>
                ) : null}
              </span>
            )}
          </li>
        ))}
      </ul>
      {current ? <Calendar intervals={intervals} /> : null}
    </div>
  );
}

function Progress({ progress }) {
  const total = progress.total || 1;
  return (
    <div className="pw-backfill-progress" aria-label="Progress">
      <div className="pw-backfill-bar">
        {STATES.map((state) =>
          progress[state] ? (
            <span
              key={state}
              className={`pw-interval-${state}`}
              style={{ width: `${(100 * progress[state]) / total}%` }}
            />
          ) : null,
        )}
      </div>
      <span className="pw-muted pw-small">
        {STATES.filter((state) => progress[state])
          .map((state) => `${progress[state]} ${state}`)
          .join(" · ")}{" "}
        of {progress.total}
      </span>
    </div>
  );
}

function Calendar({ intervals }) {
  return (
    <div className="pw-backfill-calendar" aria-label="Calendar of intervals">
      {byMonth(intervals).map(([month, days]) => (
        <div key={month} className="pw-calendar-month">
          <span className="pw-calendar-label">{month}</span>
          <span className="pw-calendar-cells">
            {days.map((interval) => (
              <span
                key={interval.start}
                className={`pw-calendar-cell pw-interval-${interval.status}`}
                title={`${interval.start} → ${interval.end}: ${interval.status}${
                  interval.error ? ` (${interval.error})` : ""
                }`}
              />
            ))}
          </span>
        </div>
      ))}
      <div className="pw-calendar-legend pw-small">
        {STATES.map((state) => (
          <span key={state}>
            <span className={`pw-calendar-cell pw-interval-${state}`} /> {state}
          </span>
        ))}
      </div>
    </div>
  );
}

function BackfillForm({ api, url, onStarted }) {
  const [values, setValues] = useState({
    start: today(-7),
    end: today(),
    start_parameter: "interval_start",
    end_parameter: "interval_end",
    value_format: "date",
    concurrency: 2,
  });
  const [error, setError] = useState(null);
  const set = (field) => (event) => setValues({ ...values, [field]: event.target.value });
  const start = async () => {
    setError(null);
    try {
      onStarted(await api.post(url, { ...values, concurrency: Number(values.concurrency) }));
    } catch (failure) {
      setError({ field: failure.body.field ?? "", message: failure.message });
    }
  };
  const field = (name, label, props = {}) => (
    <LabelledField id={`pw-backfill-${name}`} label={label}>
      <input
        id={`pw-backfill-${name}`}
        value={values[name]}
        onChange={set(name)}
        aria-invalid={error?.field === name || undefined}
        {...props}
      />
      <FieldMessages messages={error?.field === name ? [error.message] : []} />
    </LabelledField>
  );
  return (
    <div className="pw-backfill-form" role="group" aria-label="New backfill">
      <div className="pw-grid-3">
        {field("start", "From", { type: "date" })}
        {field("end", "To", { type: "date" })}
        {field("concurrency", "At once", { type: "number", min: 1, max: 32 })}
        {field("start_parameter", "Start parameter")}
        {field("end_parameter", "End parameter")}
        <LabelledField id="pw-backfill-format" label="Passed as">
          <select
            id="pw-backfill-format"
            value={values.value_format}
            onChange={set("value_format")}
          >
            <option value="date">date (YYYY-MM-DD)</option>
            <option value="datetime">date and time (ISO 8601)</option>
          </select>
        </LabelledField>
      </div>
      {error &&
      !["start", "end", "concurrency", "start_parameter", "end_parameter"].includes(error.field) ? (
        <FieldMessages messages={[error.message]} />
      ) : null}
      <button type="button" className="pw-primary" onClick={start}>
        Start backfill
      </button>
    </div>
  );
}
