// A pipeline's schedules, in its Settings dialog: the list, a form to add or edit one (an
// interval or a cron, time zone, parameters, policies, enabled) showing the next five fire
// times as the user types, and delete. Each save goes to the server at once
// (`/api/pipelines/<id>/schedules`), apart from the dialog's Apply; the server checks every
// field and names the wrong one.

import { useEffect, useState } from "react";
import { FieldMessages } from "../form/Field.jsx";
import BackfillPanel from "./BackfillPanel.jsx";
import { STEPS, cronOfInterval, describeCron, intervalOfCron } from "./scheduleInterval.js";
import {
  CheckField,
  FieldInput,
  ItemForm,
  ItemsSection,
  LabelledField,
  messagesAt,
  useItemForm,
} from "./settingsItems.jsx";

const PREVIEW_DELAY_MS = 300;
const EMPTY = {
  name: "",
  cron: "0 6 * * *",
  timezone: localZone(),
  parametersText: "{}",
  enabled: true,
  missed: "skip",
  overlap: "skip",
  use_pins: false,
  tuning: true,
};
const ZONES =
  typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];

function localZone() {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/** `iso` as the zone's wall-clock time, e.g. "Mon 30 Mar 2026, 02:30 CEST". */
export function zoneTime(iso, zone) {
  const options = {
    timeZone: zone,
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "short",
  };
  try {
    return new Date(iso).toLocaleString("en-GB", options);
  } catch {
    return iso;
  }
}

function formOf(schedule) {
  return { ...schedule, parametersText: JSON.stringify(schedule.parameters ?? {}) };
}

export default function SchedulesSection({ api, pipelineId, readOnly }) {
  const base = `/api/pipelines/${pipelineId}/schedules`;
  const [backfilling, setBackfilling] = useState(null); // the schedule whose backfills show
  return (
    <ItemsSection
      api={api}
      base={base}
      title="Schedules"
      hint={
        <>
          Run this pipeline every N minutes or hours, or at the times of a cron expression, in a
          time zone, with your rights. Saved at once.{" "}
          <a href="/docs/schedules/" target="_blank" rel="noreferrer">
            How schedules work
          </a>{" "}
          (daylight saving, missed times, overlap).
        </>
      }
      noun="schedule"
      empty={EMPTY}
      formOf={formOf}
      readOnly={readOnly}
      itemClassName="pw-schedule"
      deleteLabel={(schedule) => `Delete schedule ${schedule.name || schedule.cron}`}
      renderItem={(schedule) => (
        <>
          <div>
            <strong>{schedule.name || describeCron(schedule.cron)}</strong>{" "}
            <span className="pw-muted">
              {schedule.name ? `${describeCron(schedule.cron)} · ` : ""}
              {schedule.timezone} · {schedule.owner}
            </span>
            {schedule.enabled ? (
              <div className="pw-muted">
                next:{" "}
                {schedule.next_fire_at
                  ? zoneTime(schedule.next_fire_at, schedule.timezone)
                  : "never"}
              </div>
            ) : (
              <div className="pw-muted">
                paused{schedule.paused_reason ? ` — ${schedule.paused_reason}` : ""}
              </div>
            )}
            {schedule.last_outcome ? (
              <div className="pw-muted">last: {schedule.last_outcome}</div>
            ) : null}
          </div>
          <div className="pw-schedule-actions">
            <button
              type="button"
              aria-expanded={backfilling === schedule.id}
              onClick={() => setBackfilling(backfilling === schedule.id ? null : schedule.id)}
            >
              Backfill
            </button>
          </div>
          {backfilling === schedule.id ? (
            <BackfillPanel api={api} base={base} schedule={schedule} readOnly={readOnly} />
          ) : null}
        </>
      )}
      renderForm={(props) => <ScheduleForm api={api} base={base} {...props} />}
    />
  );
}

/** What the server takes for a schedule. */
function bodyOf(values, parameters) {
  return {
    name: values.name,
    cron: values.cron,
    timezone: values.timezone,
    parameters,
    enabled: values.enabled,
    missed: values.missed,
    overlap: values.overlap,
    use_pins: Boolean(values.use_pins),
    tuning: values.tuning !== false,
  };
}

function ScheduleForm({ api, base, initial, onDone, onCancel }) {
  const form = useItemForm({
    api,
    base,
    initial,
    parametersHint: 'parameters are a JSON object, e.g. {"min_age": 21}',
    bodyOf,
    onDone,
  });
  const { values, setValues, set } = form;
  // "Every N minutes/hours" builds the cron; "cron" edits it as text.
  const [repeat, setRepeat] = useState(intervalOfCron(initial.cron) ? "interval" : "cron");
  const interval = intervalOfCron(values.cron) ?? { every: 15, unit: "minutes" };
  const changeInterval = (patch) => {
    const next = { ...interval, ...patch };
    if (!STEPS[next.unit].includes(Number(next.every))) next.every = STEPS[next.unit][0];
    setValues({ ...values, cron: cronOfInterval(next) });
  };
  const [preview, setPreview] = useState({ times: [], error: null });

  useEffect(() => {
    let current = true;
    const timer = setTimeout(() => {
      api.post("/api/schedules/preview", { cron: values.cron, timezone: values.timezone }).then(
        (body) => current && setPreview({ times: body.next_times, error: null }),
        (failure) =>
          current &&
          setPreview({ times: [], error: { field: failure.body.field, message: failure.message } }),
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [api, values.cron, values.timezone]);

  const at = (field) => messagesAt([form.error, preview.error], field);
  return (
    <ItemForm
      noun="schedule"
      form={form}
      fields={["cron", "timezone", "parameters", "name"]}
      onCancel={onCancel}
    >
      <div className="pw-grid-2">
        <LabelledField id="pw-schedule-repeat" label="Runs">
          <select
            id="pw-schedule-repeat"
            value={repeat}
            onChange={(event) => {
              setRepeat(event.target.value);
              if (event.target.value === "interval") changeInterval({});
            }}
          >
            <option value="interval">Every N minutes or hours</option>
            <option value="cron">At the times of a cron expression</option>
          </select>
          {repeat === "interval" ? (
            <div className="pw-row pw-schedule-interval">
              <label htmlFor="pw-schedule-every">Every</label>
              <select
                id="pw-schedule-every"
                value={interval.every}
                onChange={(event) => changeInterval({ every: Number(event.target.value) })}
              >
                {STEPS[interval.unit].map((step) => (
                  <option key={step} value={step}>
                    {step}
                  </option>
                ))}
              </select>
              <select
                aria-label="Unit"
                value={interval.unit}
                onChange={(event) => changeInterval({ unit: event.target.value })}
              >
                <option value="minutes">minutes</option>
                <option value="hours">hours (on the hour)</option>
              </select>
            </div>
          ) : null}
        </LabelledField>
        <LabelledField id="pw-schedule-cron" label="Cron expression">
          <FieldInput
            id="pw-schedule-cron"
            form={form}
            name="cron"
            messages={at("cron")}
            readOnly={repeat === "interval"}
            placeholder="minute hour day month weekday"
          />
          <p className="pw-hint">
            {repeat === "interval"
              ? "Written from the interval above."
              : "Five fields: minute hour day-of-month month day-of-week, e.g. 0 6 * * MON-FRI."}
          </p>
        </LabelledField>
        <LabelledField id="pw-schedule-zone" label="Time zone">
          <input
            id="pw-schedule-zone"
            list="pw-zones"
            aria-invalid={at("timezone").length > 0 || undefined}
            value={values.timezone}
            onChange={set("timezone")}
          />
          <datalist id="pw-zones">
            {ZONES.map((zone) => (
              <option key={zone} value={zone} />
            ))}
          </datalist>
          <FieldMessages messages={at("timezone")} />
        </LabelledField>
        <LabelledField id="pw-schedule-name" label="Name">
          <FieldInput id="pw-schedule-name" form={form} name="name" placeholder="optional" />
        </LabelledField>
        <LabelledField id="pw-schedule-parameters" label="Parameters (JSON)">
          <FieldInput
            id="pw-schedule-parameters"
            form={form}
            name="parametersText"
            messages={at("parameters")}
          />
        </LabelledField>
        <LabelledField id="pw-schedule-missed" label="Times missed while the server was down">
          <select id="pw-schedule-missed" value={values.missed} onChange={set("missed")}>
            <option value="skip">Skip them</option>
            <option value="run_once">Run once</option>
          </select>
        </LabelledField>
        <LabelledField id="pw-schedule-overlap" label="While a run is going">
          <select id="pw-schedule-overlap" value={values.overlap} onChange={set("overlap")}>
            <option value="skip">Skip this time</option>
            <option value="queue">Queue behind it</option>
          </select>
        </LabelledField>
        <CheckField
          id="pw-schedule-enabled"
          label="Enabled"
          checked={values.enabled}
          onChange={set("enabled")}
        />
        <CheckField
          id="pw-schedule-pins"
          label="Use pins"
          title="By default a scheduled run ignores the pins"
          checked={Boolean(values.use_pins)}
          onChange={set("use_pins")}
        />
        <CheckField
          id="pw-schedule-tuning"
          label="Use figures from past runs"
          title="Off: its runs are planned with the fixed rules (labelled untuned)"
          checked={values.tuning !== false}
          onChange={set("tuning")}
        />
      </div>
      <div className="pw-field">
        <div className="pw-label">Next five times</div>
        <ol className="pw-next-times" aria-label="Next five times">
          {preview.times.map((moment) => (
            <li key={moment}>{zoneTime(moment, values.timezone)}</li>
          ))}
        </ol>
      </div>
    </ItemForm>
  );
}
