// What the Schedules and Triggers sections of the Settings dialog share: a list of a pipeline's
// items kept on the server (`base`, e.g. `/api/pipelines/<id>/schedules`), each with Edit and
// Delete, a "+ Add …" button that opens the form, and the form's save with the server's
// problems at their fields, and the field markup (label, checkbox, text input) their forms and
// the Backfill form use. Each section keeps its own item lines and form fields.

import { useCallback, useEffect, useState } from "react";
import { FieldMessages } from "../form/Field.jsx";

/** The items at `base`, loaded once and after each change, with the form being edited. */
function useSettingsItems(api, base) {
  const [items, setItems] = useState(null);
  const [editing, setEditing] = useState(null); // a form's values, with `id` when editing
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
  }, [reload]);
  const remove = async (item) => {
    try {
      await api.del(`${base}/${item.id}`);
      await reload();
    } catch (failure) {
      setError({ message: failure.message });
    }
  };
  return { items, editing, setEditing, error, reload, remove };
}

/** A section of the dialog listing the items at `base` (each a `<li className={itemClassName}>`
 * of `renderItem(item)` then, unless read-only, Edit and Delete), then the form
 * `renderForm({initial, onDone, onCancel})` when open, else "+ Add <noun>" opening `empty`. Edit
 * opens `formOf(item)`; `onSaved(saved)` hears each save. */
export function ItemsSection({
  api,
  base,
  title,
  hint,
  noun,
  empty,
  formOf,
  readOnly,
  itemClassName,
  deleteLabel,
  renderItem,
  renderForm,
  onSaved,
}) {
  const { items, editing, setEditing, error, reload, remove } = useSettingsItems(api, base);
  return (
    <section className="pw-field pw-schedules" aria-label={title}>
      <div className="pw-label">{title}</div>
      <p className="pw-hint">{hint}</p>
      {error && !editing ? <FieldMessages messages={[error.message]} /> : null}
      {items === null ? <p className="pw-muted">Loading…</p> : null}
      {items?.length === 0 ? <p className="pw-muted">{`No ${noun}s.`}</p> : null}
      <ul className="pw-schedule-list">
        {items?.map((item) => (
          <li key={item.id} className={itemClassName}>
            {renderItem(item)}
            {readOnly ? null : (
              <ItemActions
                deleteLabel={deleteLabel(item)}
                onEdit={() => setEditing(formOf(item))}
                onDelete={() => remove(item)}
              />
            )}
          </li>
        ))}
      </ul>
      {editing ? (
        renderForm({
          initial: editing,
          onDone: (saved) => {
            setEditing(null);
            onSaved?.(saved);
            reload();
          },
          onCancel: () => setEditing(null),
        })
      ) : readOnly ? null : (
        <button type="button" className="pw-add" onClick={() => setEditing({ ...empty })}>
          {`+ Add ${noun}`}
        </button>
      )}
    </section>
  );
}

/** An item's Edit and Delete buttons; `deleteLabel` names the item for screen readers. */
function ItemActions({ deleteLabel, onEdit, onDelete }) {
  return (
    <div className="pw-schedule-actions">
      <button type="button" onClick={onEdit}>
        Edit
      </button>
      <button type="button" aria-label={deleteLabel} onClick={onDelete}>
        Delete
      </button>
    </div>
  );
}

/** The first part of a problem's field ("parameters.x" → "parameters"). */
function fieldOf(problem) {
  return (problem.field ?? "").split(".")[0];
}

/** The messages of the `problems` (null ones left out) at `field`. */
export function messagesAt(problems, field) {
  return problems
    .filter((problem) => problem && fieldOf(problem) === field)
    .map((problem) => problem.message);
}

/** A form's values and its save: `values.parametersText` must be a JSON object (else
 * `parametersHint` shows at it), `bodyOf(values, parameters)` is what is sent (PUT when
 * `values.id`, else POST), and `onDone(saved)` follows a save; the server's problem is `error`
 * (its `field` names where it shows). */
export function useItemForm({ api, base, initial, parametersHint, bodyOf, onDone }) {
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
      setError({ field: "parameters", message: parametersHint });
      return;
    }
    const body = bodyOf(values, parameters);
    try {
      const saved = await (values.id
        ? api.put(`${base}/${values.id}`, body)
        : api.post(base, body));
      onDone(saved);
    } catch (failure) {
      setError({ field: failure.body?.field ?? "", message: failure.message });
    }
  };
  return { values, setValues, set, error, save };
}

/** The form around a section's fields for `form` (from `useItemForm`): "New <noun>" or "Edit
 * <noun>", the server's problem when no field of `fields` shows it, Cancel and "Save <noun>". */
export function ItemForm({ noun, form, fields, onCancel, children }) {
  const { error } = form;
  const elsewhere = error && !fields.includes(fieldOf(error)) ? [error.message] : [];
  return (
    <div
      className="pw-schedule-form"
      role="group"
      aria-label={form.values.id ? `Edit ${noun}` : `New ${noun}`}
    >
      {children}
      <FieldMessages messages={elsewhere} />
      <div className="pw-dialog-actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="pw-primary" onClick={form.save}>
          {`Save ${noun}`}
        </button>
      </div>
    </div>
  );
}

/** A form field: its label for the control `id` over `children` (the control, its problems and
 * hint). */
export function LabelledField({ id, label, children }) {
  return (
    <div className="pw-field">
      <label className="pw-label" htmlFor={id}>
        {label}
      </label>
      {children}
    </div>
  );
}

/** A checkbox field with its label after the box. */
export function CheckField({ id, label, title, checked, onChange }) {
  return (
    <div className="pw-field pw-field-check">
      <label htmlFor={id} title={title}>
        <input id={id} type="checkbox" checked={checked} onChange={onChange} />
        <span>{label}</span>
      </label>
    </div>
  );
}

/** The text input of `form`'s value `name`, marked invalid while `messages` (shown under it). */
export function FieldInput({ id, form, name, messages = [], ...props }) {
  return (
    <>
      <input
        id={id}
        aria-invalid={messages.length > 0 || undefined}
        value={form.values[name]}
        onChange={form.set(name)}
        {...props}
      />
      <FieldMessages messages={messages} />
    </>
  );
}
