// A pipeline's triggers, in its Settings dialog beside the schedules: the list with each
// trigger's latest events, a form to add or edit one (a file glob, an upstream pipeline, or a
// webhook), and delete. A webhook's secret shows once, just after it is created or rotated.
// Each save goes to the server at once (`/api/pipelines/<id>/triggers`); the server names the
// wrong field.

import { useEffect, useState } from "react";
import { FieldMessages } from "../form/Field.jsx";
import RotateSecret, { oldSecretNote } from "./RotateSecret.jsx";
import {
  CheckField,
  FieldInput,
  ItemForm,
  ItemsSection,
  LabelledField,
  messagesAt,
  useItemForm,
} from "./settingsItems.jsx";

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
  const [pipelines, setPipelines] = useState([]);
  // A new or rotated webhook secret, {id, secret, rotated, oldUntil}: shown once.
  const [created, setCreated] = useState(null);
  useEffect(() => {
    api.get("/api/pipelines?limit=200").then(
      (body) => setPipelines(body.items ?? []),
      () => setPipelines([]),
    );
  }, [api]);
  const nameOf = (id) => pipelines.find((pipeline) => pipeline.id === id)?.name ?? `#${id}`;

  return (
    <ItemsSection
      api={api}
      base={base}
      title="Triggers"
      hint={
        <>
          Run this pipeline when a file appears or changes in the workspace folder, when another
          pipeline&apos;s run succeeds, or when a signed webhook call arrives, with your rights.
          Saved at once.{" "}
          <a href="/docs/triggers/" target="_blank" rel="noreferrer">
            How triggers work
          </a>{" "}
          (parameters from the event, storms, signing a webhook call).
        </>
      }
      noun="trigger"
      empty={EMPTY}
      formOf={formOf}
      readOnly={readOnly}
      itemClassName="pw-schedule pw-trigger"
      deleteLabel={(trigger) => `Delete trigger ${trigger.name || trigger.id}`}
      renderItem={(trigger) => (
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
                  PIPEWRIGHT_BASE_URL is not set on the server: this address is the one your browser
                  uses, which callers may not reach.
                </div>
              )}
            </div>
          ) : null}
          {created?.id === trigger.id ? (
            <div className="pw-trigger-secret" role="status">
              {created.rotated ? "New signing secret" : "Signing secret"} (shown this once, copy it
              now): <code>{created.secret}</code>
              {created.rotated ? ` · ${oldSecretNote(created.oldUntil)}` : ""}
            </div>
          ) : null}
          {trigger.kind === "webhook" && !readOnly ? (
            <RotateSecret
              api={api}
              url={`${base}/${trigger.id}/rotate-secret`}
              onRotated={(rotated) =>
                setCreated({
                  id: trigger.id,
                  secret: rotated.secret,
                  rotated: true,
                  oldUntil: rotated.old_secret_valid_until,
                })
              }
            />
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
      )}
      renderForm={(props) => (
        <TriggerForm
          api={api}
          base={base}
          pipelines={pipelines.filter((pipeline) => pipeline.id !== pipelineId)}
          {...props}
        />
      )}
      onSaved={(saved) => {
        if (saved?.secret) setCreated({ id: saved.id, secret: saved.secret });
      }}
    />
  );
}

/** What the server takes for a trigger: only its kind's own field. */
function bodyOf(values, parameters) {
  return {
    kind: values.kind,
    name: values.name,
    enabled: values.enabled,
    pattern: values.kind === "file" ? values.pattern : "",
    upstream: values.kind === "upstream" && values.upstream ? Number(values.upstream) : null,
    parameters,
  };
}

function TriggerForm({ api, base, initial, pipelines, onDone, onCancel }) {
  const form = useItemForm({
    api,
    base,
    initial,
    parametersHint: 'parameters map a parameter to a field, e.g. {"source": "path"}',
    bodyOf,
    onDone,
  });
  const { values, set } = form;
  const at = (field) => messagesAt([form.error], field);
  return (
    <ItemForm
      noun="trigger"
      form={form}
      fields={["pattern", "upstream", "parameters", "kind"]}
      onCancel={onCancel}
    >
      <div className="pw-grid-2">
        <LabelledField id="pw-trigger-kind" label="Runs when">
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
        </LabelledField>
        <LabelledField id="pw-trigger-name" label="Name">
          <FieldInput id="pw-trigger-name" form={form} name="name" placeholder="optional" />
        </LabelledField>
        {values.kind === "file" ? (
          <LabelledField id="pw-trigger-pattern" label="Files (a glob in the workspace folder)">
            <FieldInput
              id="pw-trigger-pattern"
              form={form}
              name="pattern"
              messages={at("pattern")}
              placeholder="incoming/*.csv"
            />
            <p className="pw-hint">
              Files there when you save fire nothing; new or changed ones do.
            </p>
          </LabelledField>
        ) : null}
        {values.kind === "upstream" ? (
          <LabelledField id="pw-trigger-upstream" label="After a successful run of">
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
          </LabelledField>
        ) : null}
        <LabelledField id="pw-trigger-parameters" label="Parameters from the event (JSON)">
          <FieldInput
            id="pw-trigger-parameters"
            form={form}
            name="parametersText"
            messages={at("parameters")}
          />
          <p className="pw-hint">
            {'{"parameter": "field"}'}; the event&apos;s fields: {FIELDS[values.kind]}.
          </p>
        </LabelledField>
        <CheckField
          id="pw-trigger-enabled"
          label="Enabled"
          checked={values.enabled}
          onChange={set("enabled")}
        />
      </div>
    </ItemForm>
  );
}
