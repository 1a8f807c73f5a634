// One field of the params form: its label, its input (Widget.jsx), its hint, and the server's
// problems at its path.

import "./form.css";
import { problemsAt } from "../document/problems.js";
import { fieldKind, pathKey, splitNullable } from "./schemaForm.js";
import Widget from "./Widget.jsx";

const GROUPED_KINDS = ["stringList", "scalarList", "objectList", "unionList", "dict", "object"];

/** The field at `path` of the form; `aliases` are other paths its problems may name. */
export default function Field({
  context,
  path,
  schema,
  value,
  required,
  onChange,
  aliases = [],
  label,
}) {
  const { schema: field, nullable } = splitNullable(schema, context.root);
  const kind = fieldKind(schema, context.root);
  const id = `${context.idPrefix}-${path.join("-")}`;
  const title = label ?? field.title ?? String(path[path.length - 1]);
  const atField = problemsAt(context.problems, [pathKey(path), ...aliases]);
  const messages = atField.map((problem) => problem.message);
  const widget = (
    <Widget
      kind={kind}
      id={id}
      context={context}
      path={path}
      field={field}
      nullable={nullable}
      required={required}
      value={value}
      onChange={onChange}
      invalid={messages.length > 0}
      problems={atField}
      title={title}
    />
  );
  if (kind === "boolean") {
    return (
      <div className={`pw-field pw-field-check${messages.length ? " has-problem" : ""}`}>
        <label htmlFor={id}>
          {widget}
          <span>{title}</span>
        </label>
        {field.description ? <p className="pw-hint">{field.description}</p> : null}
        <FieldMessages messages={messages} />
      </div>
    );
  }
  const grouped = GROUPED_KINDS.includes(kind);
  return (
    <div className={`pw-field pw-field-${kind}${messages.length ? " has-problem" : ""}`}>
      {grouped ? (
        <div className="pw-label" id={`${id}-label`}>
          {title}
          {required ? <RequiredMark /> : null}
        </div>
      ) : (
        <label className="pw-label" htmlFor={id} id={`${id}-label`}>
          {title}
          {required ? <RequiredMark /> : null}
        </label>
      )}
      {widget}
      {field.description ? <p className="pw-hint">{field.description}</p> : null}
      <FieldMessages messages={messages} />
    </div>
  );
}

/** The star after a required field's label: seen, not read out (the field says it is required). */
function RequiredMark() {
  return (
    <span className="pw-required" title="required" aria-hidden="true">
      {" "}
      *
    </span>
  );
}

/** The server's messages at a field, read out as they appear. */
export function FieldMessages({ messages }) {
  if (!messages.length) return null;
  return (
    <ul className="pw-field-problems" role="alert">
      {messages.map((message, index) => (
        <li key={index}>{message}</li>
      ))}
    </ul>
  );
}
