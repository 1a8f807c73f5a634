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
          <Field
            id="pw-connection-database"
            label="SQLite file"
            hint="Its path in this workspace's folder, e.g. shop.db (upload it on the Files page)."
            input={
              <input
                id="pw-connection-database"
                value={form.database}
                onChange={set("database")}
                spellCheck={false}
              />
            }
          />
        ) : (
          <>
            <div className="pw-connection-row">
              <Field
                id="pw-connection-host"
                label="Host"
                input={
                  <input
                    id="pw-connection-host"
                    value={form.host}
                    onChange={set("host")}
                    placeholder="db.example.com"
                    spellCheck={false}
                  />
                }
              />
              <Field
                id="pw-connection-port"
                label="Port"
                input={
                  <input
                    id="pw-connection-port"
                    value={form.port}
                    inputMode="numeric"
                    onChange={set("port")}
                    placeholder={String(DIALECTS.find((d) => d.value === form.dialect)?.port ?? "")}
                  />
                }
              />
            </div>
            <div className="pw-connection-row">
              <Field
                id="pw-connection-database"
                label="Database name"
                input={
                  <input
                    id="pw-connection-database"
                    value={form.database}
                    onChange={set("database")}
                    spellCheck={false}
                  />
                }
              />
              <Field
                id="pw-connection-user"
                label="User"
                input={
                  <input
                    id="pw-connection-user"
                    value={form.user}
                    onChange={set("user")}
                    autoComplete="off"
                    spellCheck={false}
                  />
                }
              />
            </div>
          </>
        )}
        {sqlite ? null : (
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
        )}
        {hadPassword ? (
          <label className="pw-check">
            <input type="checkbox" checked={form.removePassword} onChange={set("removePassword")} />{" "}
            Remove the stored password
          </label>
        ) : null}
        {sqlite ? null : (
          <Field
            id="pw-connection-options"
            label="Options"
            hint="URL options such as sslmode=require&connect_timeout=5 (empty: none)."
            input={
              <input
                id="pw-connection-options"
                value={form.options}
                onChange={set("options")}
                spellCheck={false}
              />
            }
          />
        )}
        <Field
          id="pw-connection-url"
          label="Or paste a URL"
          hint={
            <>
              Fills the fields above. The URL they make: <code className="pw-path">{url}</code>
            </>
          }
          input={
            <input
              id="pw-connection-url"
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
          }
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
