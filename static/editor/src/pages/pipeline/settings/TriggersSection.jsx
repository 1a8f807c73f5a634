// A pipeline's triggers, in its Settings dialog beside the schedules: the list with each
// trigger's latest events, a form to add or edit one (a file glob, an upstream pipeline, or a
// webhook), and delete. A webhook's secret shows once, just after it is created. Each save
// goes to the server at once (`/api/pipelines/<id>/triggers`); the server names the wrong field.

import { useCallback, useEffect, useState } from "react";
import { FieldMessages } from "../form/Field.jsx";

const KINDS = {
  file: "A file appears or changes",
  upstream: "Another pipeline's run succeeds",
  webhook: "A signed webhook call",
};
const FIELDS = {
  file: "path, name",
  upstream: "run_id, run_number, pipeline_id",
  webhook: "the top-level fields of the call's JSON body",
};
const SHOWN_EVENTS = 5;
const EMPTY = {
  kind: "file",
  name: "",
  pattern: "incoming/*.csv",
  upstream: "",
  parametersText: "{}",
  enabled: true,
};

function formOf(trigger) {
  return {
    ...trigger,
    upstream: trigger.upstream ?? "",
    parametersText: JSON.stringify(trigger.parameters ?? {}),
  };
}

/** The address to call: absolute as the server says it when PIPEWRIGHT_BASE_URL is set, else
 * this page's origin (said so). */
function webhookAddress(trigger) {
  if (trigger.webhook_url_absolute) return trigger.webhook_url;
  return `${window.location.origin}${trigger.webhook_url}`;
}

export default function TriggersSection({ api, pipelineId, readOnly }) {
  const base = `/api/pipelines/${pipelineId}/triggers`;
  const [items, setItems] = useState(null);
  const [pipelines, setPipelines] = useState([]);
  const [editing, setEditing] = useState(null);
  const [created, setCreated] = useState(null); // a new webhook's {id, secret}: shown once
  const [error, setError] = useState(null);
  const reload = useCallback(
    () =>
      api.get(base).then(
        (body) => setItems(body.items),
        (failure) => setError({ message: failure.message }),
      ),
    [api, base],
  );
  useEffect(() => {
    reload();
    api.get("/api/pipelines?limit=200").then(
      (body) => setPipelines(body.items ?? []),
      () => setPipelines([]),
    );
  }, [api, reload]);
  const nameOf = (id) => pipelines.find((pipeline) => pipeline.id === id)?.name ?? `#${id}`;

  const remove = async (trigger) => {
    try {
      await api.del(`${base}/${trigger.id}`);
      await reload();
    } catch (failure) {
      setError({ message: failure.message });
    }
  };
  return (
    <section className="pw-field pw-schedules" aria-label="Triggers">
      <div className="pw-label">Triggers</div>
      <p className="pw-hint">
        Run this pipeline when a file appears or changes in the workspace folder, when another
        pipeline&apos;s run succeeds, or when a signed webhook call arrives, with your rights. Saved
        at once.{" "}
        <a href="/docs/triggers/" target="_blank" rel="noreferrer">
          How triggers work
        </a>{" "}
        (parameters from the event, storms, signing a webhook call).
      </p>
      {error && !editing ? <FieldMessages messages={[error.message]} /> : null}
      {items === null ? <p className="pw-muted">Loading…</p> : null}
      {items?.length === 0 ? <p className="pw-muted">No triggers.</p> : null}
      <ul className="pw-schedule-list">
        {items?.map((trigger) => (
          <li key={trigger.id} className="pw-schedule pw-trigger">
            <div>
              <strong>{trigger.name || KINDS[trigger.kind]}</strong>{" "}
              <span className="pw-muted">
                {trigger.kind === "file" ? `${trigger.pattern} · ` : ""}
                {trigger.kind === "upstream" ? `after ${nameOf(trigger.upstream)} · ` : ""}
                {trigger.enabled ? "" : "disabled · "}
                {trigger.owner}
              </span>
              {trigger.kind === "webhook" ? (
                <div className="pw-trigger-url">
                  <code>POST {webhookAddress(trigger)}</code>
                  {trigger.webhook_url_absolute ? null : (
                    <div className="pw-hint">
                      PIPEWRIGHT_BASE_URL is not set on the server: this address is the one your
                      browser uses, which callers may not reach.
                    </div>
                  )}
                </div>
              ) : null}
              {created?.id === trigger.id ? (
                <div className="pw-trigger-secret" role="status">
                  Signing secret (shown this once, copy it now): <code>{created.secret}</code>
                </div>
              ) : null}
              {trigger.dropped ? (
                <div className="pw-muted">
                  {trigger.dropped} events dropped: at most 100 wait for a run
                </div>
              ) : null}
              {trigger.recent_events.length ? (
                <ul className="pw-trigger-events" aria-label="Recent events">
                  {trigger.recent_events.slice(0, SHOWN_EVENTS).map((event) => (
                    <li key={event.id}>
                      <span className={`pw-badge pw-event-${event.status}`}>{event.status}</span>{" "}
                      {event.description}
                      {event.message ? <span className="pw-muted"> — {event.message}</span> : null}
                    </li>
                  ))}
                </ul>
              ) : (
                <div className="pw-muted">No events yet.</div>
              )}
            </div>
            {readOnly ? null : (
              <div className="pw-schedule-actions">
                <button type="button" onClick={() => setEditing(formOf(trigger))}>
                  Edit
                </button>
                <button
                  type="button"
                  aria-label={`Delete trigger ${trigger.name || trigger.id}`}
                  onClick={() => remove(trigger)}
                >
                  Delete
                </button>
              </div>
            )}
          </li>
        ))}
      </ul>
      {editing ? (
        <TriggerForm
          api={api}
          base={base}
          initial={editing}
          pipelines={pipelines.filter((pipeline) => pipeline.id !== pipelineId)}
          onDone={(saved) => {
            setEditing(null);
            if (saved?.secret) setCreated({ id: saved.id, secret: saved.secret });
            reload();
          }}
          onCancel={() => setEditing(null)}
        />
      ) : readOnly ? null : (
        <button type="button" className="pw-add" onClick={() => setEditing({ ...EMPTY })}>
          + Add trigger
        </button>
      )}
    </section>
  );
}

function TriggerForm({ api, base, initial, pipelines, onDone, onCancel }) {
  const [values, setValues] = useState(initial);
  const [error, setError] = useState(null);
  const set = (field) => (event) =>
    setValues({
      ...values,
      [field]: event.target.type === "checkbox" ? event.target.checked : event.target.value,
    });
  const save = async () => {
    let parameters;
    try {
      parameters = JSON.parse(values.parametersText || "{}");
    } catch {
      setError({
        field: "parameters",
        message: 'parameters map a parameter to a field, e.g. {"source": "path"}',
      });
      return;
    }
    const body = {
      kind: values.kind,
      name: values.name,
      enabled: values.enabled,
      pattern: values.kind === "file" ? values.pattern : "",
      upstream: values.kind === "upstream" && values.upstream ? Number(values.upstream) : null,
      parameters,
    };
    try {
      const saved = await (values.id
        ? api.put(`${base}/${values.id}`, body)
        : api.post(base, body));
      onDone(saved);
    } catch (failure) {
      setError({ field: failure.body?.field ?? "", message: failure.message });
    }
  };
  const at = (field) =>
    error && (error.field ?? "").split(".")[0] === field ? [error.message] : [];
  const elsewhere =
    error &&
    !["pattern", "upstream", "parameters", "kind"].includes((error.field ?? "").split(".")[0])
      ? [error.message]
      : [];
  return (
    <div
      className="pw-schedule-form"
      role="group"
      aria-label={values.id ? "Edit trigger" : "New trigger"}
    >
      <div className="pw-grid-2">
        <div className="pw-field">
          <label className="pw-label" htmlFor="pw-trigger-kind">
            Runs when
          </label>
          <select
            id="pw-trigger-kind"
            value={values.kind}
            onChange={set("kind")}
            disabled={Boolean(values.id)}
          >
            {Object.entries(KINDS).map(([kind, label]) => (
              <option key={kind} value={kind}>
                {label}
              </option>
            ))}
          </select>
          <FieldMessages messages={at("kind")} />
        </div>
        <div className="pw-field">
          <label className="pw-label" htmlFor="pw-trigger-name">
            Name
          </label>
          <input
            id="pw-trigger-name"
            value={values.name}
            onChange={set("name")}
            placeholder="optional"
          />
        </div>
        {values.kind === "file" ? (
          <div className="pw-field">
            <label className="pw-label" htmlFor="pw-trigger-pattern">
              Files (a glob in the workspace folder)
            </label>
            <input
              id="pw-trigger-pattern"
              aria-invalid={at("pattern").length > 0 || undefined}
              value={values.pattern}
              onChange={set("pattern")}
              placeholder="incoming/*.csv"
            />
            <FieldMessages messages={at("pattern")} />
            <p className="pw-hint">
              Files there when you save fire nothing; new or changed ones do.
            </p>
          </div>
        ) : null}
        {values.kind === "upstream" ? (
          <div className="pw-field">
            <label className="pw-label" htmlFor="pw-trigger-upstream">
              After a successful run of
            </label>
            <select
              id="pw-trigger-upstream"
              aria-invalid={at("upstream").length > 0 || undefined}
              value={values.upstream}
              onChange={set("upstream")}
            >
              <option value="">choose a pipeline…</option>
              {pipelines.map((pipeline) => (
                <option key={pipeline.id} value={pipeline.id}>
                  {pipeline.name}
                </option>
              ))}
            </select>
            <FieldMessages messages={at("upstream")} />
          </div>
        ) : null}
        <div className="pw-field">
          <label className="pw-label" htmlFor="pw-trigger-parameters">
            Parameters from the event (JSON)
          </label>
          <input
            id="pw-trigger-parameters"
            aria-invalid={at("parameters").length > 0 || undefined}
            value={values.parametersText}
            onChange={set("parametersText")}
          />
          <FieldMessages messages={at("parameters")} />
          <p className="pw-hint">
            {'{"parameter": "field"}'}; the event&apos;s fields: {FIELDS[values.kind]}.
          </p>
        </div>
        <div className="pw-field pw-field-check">
          <label htmlFor="pw-trigger-enabled">
            <input
              id="pw-trigger-enabled"
              type="checkbox"
              checked={values.enabled}
              onChange={set("enabled")}
            />
            <span>Enabled</span>
          </label>
        </div>
      </div>
      <FieldMessages messages={elsewhere} />
      <div className="pw-dialog-actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="pw-primary" onClick={save}>
          Save trigger
        </button>
      </div>
    </div>
  );
}
