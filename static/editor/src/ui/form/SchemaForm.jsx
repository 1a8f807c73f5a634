// The params form, generated from an operator's params JSON Schema. Each field shows the
// server's problems at its own path; lists of objects and dicts get add / remove rows.

import { useEffect, useState } from "react";
import {
  defaultValue,
  dictFromRows,
  dictValueSchema,
  enumOptions,
  fieldKind,
  parseNumber,
  parseScalar,
  pathKey,
  rowsFromDict,
  scalarText,
  setIn,
  splitNullable,
  unionVariants,
} from "../../model/schemaForm.js";
import { messagesAt } from "../../model/problems.js";

/** The form for `value` (a node's params); `onChange(next, key)` gets the whole new params. */
export default function SchemaForm({ schema, value, onChange, problems, columns, idPrefix }) {
  const properties = Object.entries(schema?.properties ?? {});
  if (!properties.length) return <p className="pw-muted">This operator has no settings.</p>;
  const required = new Set(schema.required ?? []);
  const context = { root: schema, problems, columns, idPrefix };
  const change = (name, next) => onChange(setIn(value ?? {}, [name], next), `params.${name}`);
  return (
    <div className="pw-form">
      {columns?.length ? (
        <datalist id={`${idPrefix}-columns`}>
          {columns.map((column) => (
            <option key={column} value={column} />
          ))}
        </datalist>
      ) : null}
      {properties.map(([name, property]) => (
        <Field
          key={name}
          context={context}
          path={[name]}
          schema={property}
          value={value?.[name]}
          required={required.has(name)}
          onChange={(next) => change(name, next)}
        />
      ))}
    </div>
  );
}

function Field({ context, path, schema, value, required, onChange, aliases = [], label }) {
  const { schema: field, nullable } = splitNullable(schema, context.root);
  const kind = fieldKind(schema, context.root);
  const id = `${context.idPrefix}-${path.join("-")}`;
  const title = label ?? field.title ?? String(path[path.length - 1]);
  const messages = messagesAt(context.problems, [pathKey(path), ...aliases]);
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
        <Messages messages={messages} />
      </div>
    );
  }
  const grouped = ["stringList", "scalarList", "objectList", "unionList", "dict", "object"].includes(kind);
  return (
    <div className={`pw-field pw-field-${kind}${messages.length ? " has-problem" : ""}`}>
      {grouped ? (
        <div className="pw-label" id={`${id}-label`}>
          {title}
          {required ? <RequiredMark /> : null}
        </div>
      ) : (
        <label className="pw-label" htmlFor={id}>
          {title}
          {required ? <RequiredMark /> : null}
        </label>
      )}
      {widget}
      {field.description ? <p className="pw-hint">{field.description}</p> : null}
      <Messages messages={messages} />
    </div>
  );
}

/** The star after a required field's label: seen, not read out (the field says it is required). */
function RequiredMark() {
  return <span className="pw-required" title="required" aria-hidden="true"> *</span>;
}

function Messages({ messages }) {
  if (!messages.length) return null;
  return (
    <ul className="pw-field-problems" role="alert">
      {messages.map((message, index) => (
        <li key={index}>{message}</li>
      ))}
    </ul>
  );
}

function Widget({ kind, id, context, path, field, nullable, required, value, onChange, invalid }) {
  const optional = !required;
  const empty = (text) => (text === "" && (optional || nullable) ? undefined : text);
  const placeholder = field.default !== undefined && field.default !== null ? String(field.default) : "";
  const common = { id, "aria-invalid": invalid || undefined, "aria-required": required || undefined };
  switch (kind) {
    case "expression":
    case "sql":
      return (
        <textarea
          {...common}
          className="pw-code"
          rows={kind === "sql" ? 6 : 2}
          spellCheck={false}
          value={scalarText(value)}
          placeholder={placeholder}
          onChange={(event) => onChange(empty(event.target.value))}
        />
      );
    case "text":
    case "path":
      return (
        <input
          {...common}
          type="text"
          value={scalarText(value)}
          placeholder={placeholder || (kind === "path" ? "relative to the data root" : "")}
          list={isColumnField(path) && context.columns?.length ? `${context.idPrefix}-columns` : undefined}
          onChange={(event) => onChange(empty(event.target.value))}
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
      return <EnumSelect common={common} field={field} context={context} value={value} onChange={onChange} nullable={nullable} required={required} />;
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
      return <DictRows id={id} context={context} path={path} field={field} value={value} onChange={onChange} required={required} />;
    case "object":
      return <ObjectFields context={context} path={path} field={field} value={value} onChange={onChange} />;
    default:
      return <JsonText id={id} value={value} onChange={onChange} invalid={invalid} />;
  }
}

function isColumnField(path) {
  const name = String(path[path.length - 1]);
  return /column|^target$|^by$|_on$|group_by|keys/.test(name);
}

function EnumSelect({ common, field, context, value, onChange, nullable, required }) {
  const options = enumOptions(field, context.root) ?? [];
  const current = value === undefined ? field.default : value;
  const index = options.findIndex((option) => option === current);
  const blank = nullable || (!required && field.default === undefined) || index < 0;
  return (
    <select
      {...common}
      value={index < 0 ? "" : String(index)}
      onChange={(event) => onChange(event.target.value === "" ? undefined : options[Number(event.target.value)])}
    >
      {blank ? <option value="">{nullable ? "— none —" : "— choose —"}</option> : null}
      {options.map((option, position) => (
        <option key={String(option)} value={String(position)}>
          {String(option)}
        </option>
      ))}
    </select>
  );
}

function ValueList({ id, context, field, value, required, onChange, scalar, path }) {
  const items = Array.isArray(value) ? value : Array.isArray(field.default) ? field.default : [];
  const item = splitNullable(field.items ?? {}, context.root).schema;
  const itemOptions = enumOptions(item, context.root);
  const update = (next) => onChange(next.length || required ? next : undefined);
  const withColumns = isColumnField(path) && context.columns?.length;
  return (
    <div className="pw-rows" role="group" aria-labelledby={`${id}-label`}>
      {items.map((entry, index) => (
        <div className="pw-row" key={index}>
          {itemOptions ? (
            <select
              aria-label={`${field.title ?? "value"} ${index + 1}`}
              value={String(itemOptions.indexOf(entry))}
              onChange={(event) => update(items.map((old, at) => (at === index ? itemOptions[Number(event.target.value)] : old)))}
            >
              {itemOptions.map((option, position) => (
                <option key={String(option)} value={String(position)}>
                  {String(option)}
                </option>
              ))}
            </select>
          ) : (
            <input
              type="text"
              aria-label={`${field.title ?? "value"} ${index + 1}`}
              value={scalarText(entry)}
              list={withColumns ? `${context.idPrefix}-columns` : undefined}
              onChange={(event) => {
                const text = event.target.value;
                const next = scalar ? (parseScalar(text) ?? "") : text;
                update(items.map((old, at) => (at === index ? next : old)));
              }}
            />
          )}
          <button type="button" className="pw-icon-button" aria-label="Remove" title="Remove" onClick={() => update(items.filter((_, at) => at !== index))}>
            ×
          </button>
        </div>
      ))}
      <button
        type="button"
        className="pw-add"
        onClick={() => onChange([...items, itemOptions ? itemOptions[0] : scalar ? "" : ""])}
      >
        + Add
      </button>
    </div>
  );
}

function ObjectList({ id, context, path, field, value, required, onChange, union }) {
  const items = Array.isArray(value) ? value : [];
  const itemSchema = field.items ?? {};
  const update = (next) => onChange(next.length || required ? next : undefined);
  const variants = union ? unionVariants(itemSchema, context.root) : null;
  return (
    <div className="pw-cards" role="group" aria-labelledby={`${id}-label`}>
      {items.map((entry, index) => (
        <div className="pw-card" key={index}>
          <div className="pw-card-head">
            <span className="pw-card-number">{index + 1}</span>
            <button type="button" className="pw-icon-button" aria-label={`Remove ${index + 1}`} title="Remove" onClick={() => update(items.filter((_, at) => at !== index))}>
              ×
            </button>
          </div>
          {variants ? (
            <UnionItem context={context} path={[...path, index]} variants={variants} value={entry} onChange={(next) => update(items.map((old, at) => (at === index ? next : old)))} />
          ) : (
            <ObjectFields
              context={context}
              path={[...path, index]}
              field={splitNullable(itemSchema, context.root).schema}
              value={entry}
              onChange={(next) => update(items.map((old, at) => (at === index ? next : old)))}
            />
          )}
        </div>
      ))}
      <button type="button" className="pw-add" onClick={() => onChange([...items, defaultValue(itemSchema, context.root)])}>
        + Add
      </button>
    </div>
  );
}

function UnionItem({ context, path, variants, value, onChange }) {
  const { prop } = variants;
  const current = variants.variants.find((variant) => variant.tag === value?.[prop]) ?? variants.variants[0];
  const choose = (tag) => {
    const variant = variants.variants.find((option) => option.tag === tag);
    const fresh = defaultValue(variant.schema, context.root);
    for (const [name, old] of Object.entries(value ?? {})) {
      if (name !== prop && variant.schema.properties?.[name]) fresh[name] = old;
    }
    onChange({ ...fresh, [prop]: tag });
  };
  const selectId = `${context.idPrefix}-${path.join("-")}-${prop}`;
  return (
    <>
      <div className="pw-field">
        <label className="pw-label" htmlFor={selectId}>
          {current.schema.properties[prop]?.title ?? prop}
        </label>
        <select id={selectId} value={String(current.tag)} onChange={(event) => choose(event.target.value)}>
          {variants.variants.map((variant) => (
            <option key={String(variant.tag)} value={String(variant.tag)}>
              {variant.title ? `${variant.title} (${variant.tag})` : String(variant.tag)}
            </option>
          ))}
        </select>
        {current.description ? <p className="pw-hint">{current.description}</p> : null}
      </div>
      <ObjectFields
        context={context}
        path={path}
        field={current.schema}
        value={value}
        onChange={onChange}
        skip={prop}
        tag={current.tag}
      />
    </>
  );
}

function ObjectFields({ context, path, field, value, onChange, skip, tag }) {
  const required = new Set(field.required ?? []);
  return (
    <div className="pw-object">
      {Object.entries(field.properties ?? {})
        .filter(([name]) => name !== skip)
        .map(([name, property]) => (
          <Field
            key={name}
            context={context}
            path={[...path, name]}
            aliases={tag !== undefined ? [pathKey([...path, tag, name])] : []}
            schema={property}
            value={value?.[name]}
            required={required.has(name)}
            onChange={(next) => onChange(setIn(value ?? {}, [name], next))}
          />
        ))}
    </div>
  );
}

function DictRows({ id, context, path, field, value, onChange, required }) {
  const current = value ?? field.default ?? {};
  const [rows, setRows] = useState(() => rowsFromDict(current));
  useEffect(() => {
    // Take the value when it changed from outside (undo, another node), not while typing.
    setRows((old) => (sameDict(dictFromRows(old), current) ? old : rowsFromDict(current)));
  }, [current]);
  const valueSchema = dictValueSchema(field) ?? {};
  const valueOptions = enumOptions(valueSchema, context.root);
  const valueKind = fieldKind(valueSchema, context.root);
  const update = (next) => {
    setRows(next);
    const dict = dictFromRows(next);
    onChange(Object.keys(dict).length || required ? dict : undefined);
  };
  const setRow = (index, patch) => update(rows.map((row, at) => (at === index ? { ...row, ...patch } : row)));
  return (
    <div className="pw-rows" role="group" aria-labelledby={`${id}-label`}>
      {rows.map((row, index) => (
        <div className="pw-row pw-row-pair" key={index}>
          <input
            type="text"
            aria-label={`Name ${index + 1}`}
            placeholder="name"
            value={row.key}
            list={context.columns?.length ? `${context.idPrefix}-columns` : undefined}
            onChange={(event) => setRow(index, { key: event.target.value })}
          />
          {valueOptions ? (
            <select aria-label={`Value ${index + 1}`} value={String(valueOptions.indexOf(row.value))} onChange={(event) => setRow(index, { value: valueOptions[Number(event.target.value)] })}>
              {valueOptions.map((option, position) => (
                <option key={String(option)} value={String(position)}>
                  {String(option)}
                </option>
              ))}
            </select>
          ) : (
            <input
              type="text"
              aria-label={`Value ${index + 1}`}
              placeholder="value"
              value={scalarText(row.value)}
              onChange={(event) => {
                const text = event.target.value;
                setRow(index, { value: valueKind === "text" ? text : (parseScalar(text) ?? "") });
              }}
            />
          )}
          <button type="button" className="pw-icon-button" aria-label="Remove" title="Remove" onClick={() => update(rows.filter((_, at) => at !== index))}>
            ×
          </button>
        </div>
      ))}
      <button type="button" className="pw-add" onClick={() => setRows([...rows, { key: "", value: valueOptions ? valueOptions[0] : defaultValue(valueSchema, context.root) ?? "" }])}>
        + Add
      </button>
      {path.length === 1 && rows.some((row) => row.key === "") ? <p className="pw-hint">Rows without a name are not saved.</p> : null}
    </div>
  );
}

function sameDict(a, b) {
  return JSON.stringify(a) === JSON.stringify(b ?? {});
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
