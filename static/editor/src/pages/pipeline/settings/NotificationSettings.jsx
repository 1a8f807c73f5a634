// The "Notifications" section of the pipeline's settings: webhooks and e-mail told when a run
// fails (or succeeds, or runs long), each with a Test button. Changes are saved at once
// through /api/pipelines/{id}/notifications, apart from the pipeline's own save; a webhook's
// signing secret is shown once, when it is made.

import { useCallback, useEffect, useState } from "react";

const BLANK = {
  kind: "webhook",
  url: "",
  recipients: "",
  on_failure: true,
  on_success: false,
  long_after_s: "",
  enabled: true,
};

/** The form's fields for a stored notification. */
function formOf(notification) {
  return {
    ...notification,
    recipients: notification.recipients.join(", "),
    long_after_s: notification.long_after_s ?? "",
  };
}

/** The API body of the form: addresses split at commas, spaces or semicolons. */
export function bodyOf(form) {
  const recipients = form.recipients.split(/[\s,;]+/).filter(Boolean);
  const longAfter = String(form.long_after_s).trim();
  return {
    kind: form.kind,
    url: form.kind === "webhook" ? form.url.trim() : "",
    recipients: form.kind === "email" ? recipients : [],
    on_failure: form.on_failure,
    on_success: form.on_success,
    long_after_s: longAfter === "" ? null : Number(longAfter),
    enabled: form.enabled,
  };
}

/** "when a run fails, succeeds" — what a notification fires on, in words. */
export function whenText(notification) {
  const when = [];
  if (notification.on_failure) when.push("fails");
  if (notification.on_success) when.push("succeeds");
  if (notification.long_after_s) when.push(`runs over ${notification.long_after_s} s`);
  return when.length ? `when a run ${when.join(", ")}` : "never";
}

/** Lists, adds, changes, deletes and tests the pipeline's notifications (editors only). */
/** Where the messages' links to runs start, and why there (docs/notifications.md). */
export function linksText(notification) {
  const start = notification?.links_start_with;
  if (!start) return "";
  return notification.links_from === "PIPEWRIGHT_BASE_URL"
    ? `Links to runs start with ${start} (PIPEWRIGHT_BASE_URL).`
    : `Links to runs start with ${start}, the address this was saved at; ` +
        "set PIPEWRIGHT_BASE_URL to choose another.";
}

export default function NotificationSettings({ api, pipelineId }) {
  const base = `/api/pipelines/${pipelineId}/notifications`;
  const [items, setItems] = useState(null);
  const [refusal, setRefusal] = useState("");
  const [editing, setEditing] = useState(null); // {id | null, form}
  const [error, setError] = useState("");
  const [secret, setSecret] = useState("");
  const [tests, setTests] = useState({});

  const load = useCallback(() => {
    api.get(base).then(
      (answer) => setItems(answer.items),
      (failure) =>
        setRefusal(
          failure.status === 403
            ? "Only the pipeline's editors see its notifications."
            : failure.message,
        ),
    );
  }, [api, base]);
  useEffect(load, [load]);

  const save = async (event) => {
    event.preventDefault();
    setError("");
    try {
      const body = bodyOf(editing.form);
      const saved =
        editing.id == null
          ? await api.post(base, body)
          : await api.put(`${base}/${editing.id}`, body);
      if (saved.secret) setSecret(saved.secret);
      setEditing(null);
      load();
    } catch (failure) {
      setError(failure.message);
    }
  };
  const remove = async (id) => {
    await api.del(`${base}/${id}`).catch((failure) => setError(failure.message));
    load();
  };
  const test = async (id) => {
    setTests({ ...tests, [id]: { detail: "sending…" } });
    try {
      setTests({ ...tests, [id]: await api.post(`${base}/${id}/test`) });
    } catch (failure) {
      setTests({ ...tests, [id]: { delivered: false, detail: failure.message } });
    }
  };
  const change = (field, value) =>
    setEditing({ ...editing, form: { ...editing.form, [field]: value } });

  return (
    <section className="pw-notifications" aria-labelledby="pw-notifications-title">
      <h3 id="pw-notifications-title" className="pw-label">
        Notifications
      </h3>
      {refusal ? <p className="pw-hint">{refusal}</p> : null}
      {secret ? (
        <p className="pw-notice" role="status">
          Signing secret, shown this once: <code>{secret}</code>. Verify{" "}
          <code>X-Pipewright-Signature</code> (HMAC-SHA256 of the body) with it.
        </p>
      ) : null}
      {items?.length === 0 && !editing ? (
        <p className="pw-hint">Nobody is told how runs end.</p>
      ) : null}
      {items?.length ? <p className="pw-hint">{linksText(items[0])}</p> : null}
      <ul className="pw-notification-list">
        {(items ?? []).map((notification) => (
          <li key={notification.id} className="pw-notification">
            <span className="pw-notification-target">
              {notification.kind === "webhook" ? "Webhook" : "E-mail"}{" "}
              {notification.kind === "webhook"
                ? notification.url
                : notification.recipients.join(", ")}
            </span>
            <span className="pw-hint">
              {whenText(notification)}
              {notification.enabled ? "" : " (off)"}
            </span>
            <span className="pw-notification-actions">
              <button type="button" onClick={() => test(notification.id)}>
                Test
              </button>
              <button
                type="button"
                onClick={() => setEditing({ id: notification.id, form: formOf(notification) })}
              >
                Edit
              </button>
              <button type="button" onClick={() => remove(notification.id)}>
                Delete
              </button>
            </span>
            {tests[notification.id] ? (
              <span
                role="status"
                className={tests[notification.id].delivered ? "pw-test-ok" : "pw-test-failed"}
              >
                {tests[notification.id].delivered === undefined
                  ? ""
                  : tests[notification.id].delivered
                    ? "Delivered: "
                    : "Not delivered: "}
                {tests[notification.id].detail}
              </span>
            ) : null}
          </li>
        ))}
      </ul>
      {editing ? (
        <form className="pw-notification-form" onSubmit={save}>
          <div className="pw-grid-2">
            <div className="pw-field">
              <label className="pw-label" htmlFor="pw-notify-kind">
                Kind
              </label>
              <select
                id="pw-notify-kind"
                value={editing.form.kind}
                onChange={(event) => change("kind", event.target.value)}
              >
                <option value="webhook">Webhook</option>
                <option value="email">E-mail</option>
              </select>
            </div>
            {editing.form.kind === "webhook" ? (
              <div className="pw-field">
                <label className="pw-label" htmlFor="pw-notify-url">
                  URL
                </label>
                <input
                  id="pw-notify-url"
                  type="url"
                  required
                  placeholder="https://hooks.example.com/pipewright"
                  value={editing.form.url}
                  onChange={(event) => change("url", event.target.value)}
                />
              </div>
            ) : (
              <div className="pw-field">
                <label className="pw-label" htmlFor="pw-notify-recipients">
                  Addresses
                </label>
                <input
                  id="pw-notify-recipients"
                  required
                  placeholder="ada@example.com, grace@example.com"
                  value={editing.form.recipients}
                  onChange={(event) => change("recipients", event.target.value)}
                />
                <p className="pw-hint">
                  Members of the workspace; a workspace admin may add others.
                </p>
              </div>
            )}
            <label className="pw-field-check">
              <input
                type="checkbox"
                checked={editing.form.on_failure}
                onChange={(event) => change("on_failure", event.target.checked)}
              />{" "}
              When a run fails or is interrupted
            </label>
            <label className="pw-field-check">
              <input
                type="checkbox"
                checked={editing.form.on_success}
                onChange={(event) => change("on_success", event.target.checked)}
              />{" "}
              When a run succeeds
            </label>
            <div className="pw-field">
              <label className="pw-label" htmlFor="pw-notify-long">
                When a run lasts over (s)
              </label>
              <input
                id="pw-notify-long"
                type="number"
                min={1}
                placeholder="never"
                value={editing.form.long_after_s}
                onChange={(event) => change("long_after_s", event.target.value)}
              />
            </div>
            <label className="pw-field-check">
              <input
                type="checkbox"
                checked={editing.form.enabled}
                onChange={(event) => change("enabled", event.target.checked)}
              />{" "}
              On
            </label>
          </div>
          {error ? (
            <p className="pw-field-problems" role="alert">
              {error}
            </p>
          ) : null}
          <div className="pw-dialog-actions">
            <button type="button" onClick={() => setEditing(null)}>
              Cancel
            </button>
            <button type="submit" className="pw-primary">
              Save notification
            </button>
          </div>
        </form>
      ) : items ? (
        <button
          type="button"
          className="pw-add"
          onClick={() => {
            setError("");
            setEditing({ id: null, form: BLANK });
          }}
        >
          + Add notification
        </button>
      ) : null}
    </section>
  );
}
