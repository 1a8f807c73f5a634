// The dialog that adds or edits a workspace's database connection: a database kind, host,
// port, database, user, password and options (the URL is built from them, and a pasted URL
// fills them), with "Test connection". The password is write-only: an empty field keeps the
// stored one.

import "./connection.css";
import { useState } from "react";
import Dialog from "../../ui/Dialog.jsx";
import { DIALECTS, buildUrl, missingField, withPastedUrl } from "./connections.js";

export function ConnectionDialog({ initial, isNew, hadPassword, onSave, onTest, onClose }) {
  const [form, setForm] = useState(initial);
  const [problem, setProblem] = useState("");
  const [busy, setBusy] = useState(false);
  const [pasted, setPasted] = useState(initial.unparsed ?? "");
  const [tested, setTested] = useState(null); // {ok, message} | "testing"
  const change = (next) => {
    setForm(next);
    setTested(null);
  };
  const set = (field) => (event) =>
    change({
      ...form,
      [field]: event.target.type === "checkbox" ? event.target.checked : event.target.value,
    });
  const sqlite = form.dialect === "sqlite";
  const missing = missingField(form);
  const url = buildUrl(form);
  const test = async () => {
    setTested("testing");
    setTested(await onTest(form));
  };
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
          <TextField
            name="name"
            label="Name"
            hint="What SQL operators call it."
            maxLength={100}
            required
            form={form}
            set={set}
          />
        ) : null}
        <Field
          id="pw-connection-dialect"
          label="Database"
          input={
            <select
              id="pw-connection-dialect"
              value={form.dialect}
              onChange={(event) =>
                change({ ...form, dialect: event.target.value, driver: "", port: "" })
              }
            >
              {DIALECTS.map((dialect) => (
                <option key={dialect.value} value={dialect.value}>
                  {dialect.label}
                </option>
              ))}
            </select>
          }
        />
        {sqlite ? (
          <TextField
            name="database"
            label="SQLite file"
            hint="Its path in this workspace's folder, e.g. shop.db (upload it on the Files page)."
            spellCheck={false}
            form={form}
            set={set}
          />
        ) : (
          <>
            <div className="pw-connection-row">
              <TextField
                name="host"
                label="Host"
                placeholder="db.example.com"
                spellCheck={false}
                form={form}
                set={set}
              />
              <TextField
                name="port"
                label="Port"
                inputMode="numeric"
                placeholder={String(DIALECTS.find((d) => d.value === form.dialect)?.port ?? "")}
                form={form}
                set={set}
              />
            </div>
            <div className="pw-connection-row">
              <TextField
                name="database"
                label="Database name"
                spellCheck={false}
                form={form}
                set={set}
              />
              <TextField
                name="user"
                label="User"
                autoComplete="off"
                spellCheck={false}
                form={form}
                set={set}
              />
            </div>
          </>
        )}
        {sqlite ? null : (
          <TextField
            name="password"
            label="Password"
            hint={
              hadPassword
                ? "A password is stored. Leave empty to keep it (for the same server, user and database)."
                : "Leave empty when the database needs none."
            }
            type="password"
            autoComplete="new-password"
            disabled={form.removePassword}
            form={form}
            set={set}
          />
        )}
        {hadPassword ? (
          <label className="pw-check">
            <input type="checkbox" checked={form.removePassword} onChange={set("removePassword")} />{" "}
            Remove the stored password
          </label>
        ) : null}
        {sqlite ? null : (
          <TextField
            name="options"
            label="Options"
            hint="URL options such as sslmode=require&connect_timeout=5 (empty: none)."
            spellCheck={false}
            form={form}
            set={set}
          />
        )}
        <TextField
          name="url"
          label="Or paste a URL"
          hint={
            <>
              Fills the fields above. The URL they make: <code className="pw-path">{url}</code>
            </>
          }
          value={pasted}
          placeholder="postgresql+psycopg://reader@db.example.com:5432/shop"
          spellCheck={false}
          aria-invalid={pasted && !withPastedUrl(form, pasted) ? true : undefined}
          onChange={(event) => {
            setPasted(event.target.value);
            const filled = withPastedUrl(form, event.target.value);
            if (filled) change(filled);
          }}
        />
        <div className="pw-connection-test">
          <button
            type="button"
            onClick={test}
            disabled={Boolean(missing) || tested === "testing"}
            title={missing ? `Fill in ${missing} first` : "Connect once and run SELECT 1"}
          >
            {tested === "testing" ? "Testing…" : "Test connection"}
          </button>
          {tested && tested !== "testing" ? (
            <p
              className={`pw-test-result ${tested.ok ? "pw-test-ok" : "pw-test-failed"}`}
              role={tested.ok ? "status" : "alert"}
            >
              {tested.ok ? "✓ " : "✗ "}
              {tested.message}
            </p>
          ) : null}
        </div>
        <label className="pw-check">
          <input type="checkbox" checked={form.read_only} onChange={set("read_only")} /> Read-only
          (the database refuses writes; an SQL output needs this off)
        </label>
        <TextField
          name="prefix"
          label="Table prefix"
          hint="With writes allowed: the only tables an output may write start with this (empty: any)."
          form={form}
          set={set}
        />
        <TextField name="description" label="Description" form={form} set={set} />
        {problem ? (
          <p className="pw-test-result pw-test-failed" role="alert">
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
            disabled={busy || !form.name.trim() || Boolean(missing)}
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

/** A text box of the form: `form[name]`, changed through `set(name)` (or the `value` and
 * `onChange` given); other props go to the input. */
function TextField({ name, label, hint, form, set, ...input }) {
  const id = `pw-connection-${name}`;
  return (
    <Field
      id={id}
      label={label}
      hint={hint}
      input={<input id={id} value={form?.[name]} onChange={set?.(name)} {...input} />}
    />
  );
}
