// The params form, generated from an operator's params JSON Schema. Each field shows the
// server's problems at its own path. One module per kind of field: Field.jsx (label, hint,
// problems), Widget.jsx (the input for a scalar kind), ColumnPicker.jsx (fields naming an
// input's columns), ExpressionEditor.jsx (expressions, with expressionLanguage.js),
// ListFields.jsx (lists, objects, unions), DictRows.jsx (name → value rows), controls.jsx
// (the pieces they share).

import { setIn } from "./schemaForm.js";
import Field from "./Field.jsx";

/**
 * The form for `value` (a node's params); `onChange(next, key)` gets the whole new params.
 * `schemas` is the node's `{inputs, outputs}` columns (the analysis'), which column pickers
 * and expression editors offer; `readOnly` for a viewer; `writes` when the node writes
 * its paths (an output: its file picker names a new file).
 */
export default function SchemaForm({
  schema,
  value,
  onChange,
  problems,
  schemas,
  idPrefix,
  readOnly = false,
  writes = false,
}) {
  const properties = Object.entries(schema?.properties ?? {});
  if (!properties.length) return <p className="pw-muted">This operator has no settings.</p>;
  const required = new Set(schema.required ?? []);
  const context = { root: schema, problems, schemas, idPrefix, readOnly, writes };
  const change = (name, next) => onChange(setIn(value ?? {}, [name], next), `params.${name}`);
  return (
    <div className="pw-form">
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
