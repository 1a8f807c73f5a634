// The input of a params field for its kind (form/schemaForm.js `fieldKind`): text, code,
// numbers, a checkbox, a select, or the list, object and dict editors of the other modules.

import { lazy, Suspense, useState } from "react";
import { itemReference, portColumns, portReference } from "./columnFields.js";
import { enumOptions, parseNumber, parseScalar, scalarText } from "./schemaForm.js";
import ColumnPicker from "./ColumnPicker.jsx";
import ConnectionField from "./ConnectionField.jsx";
import PathField from "./PathField.jsx";
import { OptionSelect } from "./controls.jsx";
import DictRows from "./DictRows.jsx";
import { ObjectList, OptionalObject, ValueList } from "./ListFields.jsx";

// CodeMirror is a third of the bundle and only an expression field needs it: it loads the
// first time one is shown (a chunk of its own), while a plain box holds the text.
const ExpressionEditor = lazy(() => import("./ExpressionEditor.jsx"));

/** The input for `kind`; `invalid` marks it when the server found a problem there, and
 * `problems` are those problems (an expression editor underlines them in its text). */
export default function Widget({
  kind,
  id,
  context,
  path,
  field,
  nullable,
  required,
  value,
  onChange,
  invalid,
  problems,
  title,
}) {
  const optional = !required;
  const empty = (text) => (text === "" && (optional || nullable) ? undefined : text);
  const placeholder =
    field.default !== undefined && field.default !== null ? String(field.default) : "";
  const common = {
    id,
    "aria-invalid": invalid || undefined,
    "aria-required": required || undefined,
  };
  switch (kind) {
    case "expression": {
      const port = portReference(field, context.root)?.port;
      const text = typeof value === "string" ? value : scalarText(value);
      return (
        <Suspense
          fallback={
            <input
              className="pw-code"
              id={id}
              value={text}
              placeholder={placeholder}
              readOnly
              aria-busy="true"
            />
          }
        >
          <ExpressionEditor
            id={id}
            value={text}
            placeholder={placeholder}
            columns={port ? portColumns(context.schemas, port) : null}
            problems={problems}
            readOnly={context.readOnly}
            onChange={(typed) => onChange(empty(typed ?? ""))}
          />
        </Suspense>
      );
    }
    case "column":
    case "columnList": {
      const port = (
        kind === "column" ? portReference(field, context.root) : itemReference(field, context.root)
      ).port;
      return (
        <ColumnPicker
          id={id}
          label={title}
          port={port}
          columns={portColumns(context.schemas, port)}
          value={kind === "column" ? value : (value ?? field.default)}
          multiple={kind === "columnList"}
          invalid={invalid}
          required={required}
          onChange={(next) =>
            onChange(kind === "columnList" && !next.length && !required ? undefined : next)
          }
        />
      );
    }
    case "sql":
      return (
        <textarea
          {...common}
          className="pw-code"
          rows={6}
          spellCheck={false}
          value={scalarText(value)}
          placeholder={placeholder}
          onChange={(event) => onChange(empty(event.target.value))}
        />
      );
    case "text":
      return (
        <input
          {...common}
          type="text"
          value={scalarText(value)}
          placeholder={placeholder}
          onChange={(event) => onChange(empty(event.target.value))}
        />
      );
    case "path":
      return (
        <PathField
          common={common}
          value={scalarText(value)}
          placeholder={placeholder || "a file of the workspace, e.g. data/sales.csv"}
          readOnly={context.readOnly}
          writes={context.writes}
          title={title}
          onChange={(text) => onChange(empty(text))}
        />
      );
    case "connection":
      return (
        <ConnectionField
          common={common}
          value={value}
          readOnly={context.readOnly}
          onChange={onChange}
        />
      );
    case "integer":
    case "number":
      return (
        <input
          {...common}
          type="number"
          step={kind === "integer" ? 1 : "any"}
          min={field.minimum}
          max={field.maximum}
          value={value ?? ""}
          placeholder={placeholder}
          onChange={(event) => onChange(parseNumber(event.target.value, kind === "integer"))}
        />
      );
    case "boolean":
      return (
        <input
          {...common}
          type="checkbox"
          checked={Boolean(value ?? field.default ?? false)}
          onChange={(event) => onChange(event.target.checked)}
        />
      );
    case "enum":
      return (
        <EnumSelect
          common={common}
          field={field}
          context={context}
          value={value}
          onChange={onChange}
          nullable={nullable}
          required={required}
        />
      );
    case "scalar":
      return (
        <input
          {...common}
          type="text"
          value={scalarText(value)}
          placeholder={placeholder}
          onChange={(event) => onChange(parseScalar(event.target.value))}
        />
      );
    case "stringList":
    case "scalarList":
      return (
        <ValueList
          id={id}
          context={context}
          field={field}
          value={value}
          required={required}
          onChange={onChange}
          scalar={kind === "scalarList"}
          path={path}
        />
      );
    case "objectList":
    case "unionList":
      return (
        <ObjectList
          id={id}
          context={context}
          path={path}
          field={field}
          value={value}
          required={required}
          onChange={onChange}
          union={kind === "unionList"}
        />
      );
    case "dict":
      return (
        <DictRows
          id={id}
          context={context}
          path={path}
          field={field}
          value={value}
          onChange={onChange}
          required={required}
        />
      );
    case "object":
      return (
        <OptionalObject
          id={id}
          context={context}
          path={path}
          field={field}
          value={value}
          onChange={onChange}
          required={required}
          nullable={nullable}
          title={title}
        />
      );
    default:
      return <JsonText id={id} value={value} onChange={onChange} invalid={invalid} />;
  }
}

function EnumSelect({ common, field, context, value, onChange, nullable, required }) {
  const options = enumOptions(field, context.root) ?? [];
  const current = value === undefined ? field.default : value;
  const blank =
    nullable || (!required && field.default === undefined) || !options.includes(current);
  return (
    <OptionSelect
      {...common}
      options={options}
      value={current}
      onChange={onChange}
      blank={blank ? (nullable ? "— none —" : "— choose —") : null}
    />
  );
}

function JsonText({ id, value, onChange, invalid }) {
  const [text, setText] = useState(() => (value === undefined ? "" : JSON.stringify(value)));
  const [error, setError] = useState("");
  return (
    <>
      <textarea
        id={id}
        className="pw-code"
        rows={2}
        aria-invalid={invalid || Boolean(error) || undefined}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onBlur={() => {
          if (text.trim() === "") {
            setError("");
            onChange(undefined);
            return;
          }
          try {
            onChange(JSON.parse(text));
            setError("");
          } catch {
            setError("not valid JSON");
          }
        }}
      />
      {error ? <p className="pw-field-problems">{error}</p> : null}
    </>
  );
}
