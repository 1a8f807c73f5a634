// The dialog that adds or edits a workspace's database connection. The password is
// write-only: an empty field keeps the stored one.

import { useState } from "react";
import Dialog from "../../ui/Dialog.jsx";

export function ConnectionDialog({ initial, isNew, hadPassword, onSave, onClose }) {
  const [form, setForm] = useState(initial);
  const [problem, setProblem] = useState("");
  const [busy, setBusy] = useState(false);
  const set = (field) => (event) =>
    setForm({
      ...form,
      [field]: event.target.type === "checkbox" ? event.target.checked : event.target.value,
    });
  return (
    <Dialog title={isNew ? "New connection" : `Connection “${form.name}”`} onClose={onClose} wide>
      <form
        className="pw-connection-form"
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          setProblem((await onSave(form)) ?? "");
          setBusy(false);
        }}
      >
        {isNew ? (
          <Field
            id="pw-connection-name"
            label="Name"
            hint="What SQL operators call it."
            input={
              <input
                id="pw-connection-name"
                value={form.name}
                maxLength={100}
                onChange={set("name")}
                required
              />
            }
          />
        ) : null}
        <Field
          id="pw-connection-url"
          label="URL"
          hint="A SQLAlchemy URL without the password, e.g. postgresql+psycopg://reader@db.example.com/shop or sqlite:///shop.db (a file in this workspace)."
          input={
            <input
              id="pw-connection-url"
              value={form.url}
              onChange={set("url")}
              required
              spellCheck={false}
            />
          }
        />
        <Field
          id="pw-connection-password"
          label="Password"
          hint={
            hadPassword
              ? "A password is stored. Leave empty to keep it."
              : "Leave empty when the database needs none."
          }
          input={
            <input
              id="pw-connection-password"
              type="password"
              autoComplete="new-password"
              value={form.password}
              disabled={form.removePassword}
              onChange={set("password")}
            />
          }
        />
        {hadPassword ? (
          <label className="pw-check">
            <input type="checkbox" checked={form.removePassword} onChange={set("removePassword")} />{" "}
            Remove the stored password
          </label>
        ) : null}
        <label className="pw-check">
          <input type="checkbox" checked={form.read_only} onChange={set("read_only")} /> Read-only
          (the database refuses writes; an SQL output needs this off)
        </label>
        <Field
          id="pw-connection-prefix"
          label="Table prefix"
          hint="With writes allowed: the only tables an output may write start with this (empty: any)."
          input={<input id="pw-connection-prefix" value={form.prefix} onChange={set("prefix")} />}
        />
        <Field
          id="pw-connection-description"
          label="Description"
          input={
            <input
              id="pw-connection-description"
              value={form.description}
              onChange={set("description")}
            />
          }
        />
        {problem ? (
          <p className="pw-alert" role="alert">
            Not saved: {problem}
          </p>
        ) : null}
        <div className="pw-dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="submit"
            className="pw-primary"
            disabled={busy || !form.name.trim() || !form.url.trim()}
          >
            Save connection
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function Field({ id, label, hint, input }) {
  return (
    <div className="pw-field">
      <label className="pw-label" htmlFor={id}>
        {label}
      </label>
      {input}
      {hint ? <p className="pw-hint">{hint}</p> : null}
    </div>
  );
}
