// The params form's dict field: rows of name and value, kept as typed (empty names too)
// until they make a dict.

import { useState } from "react";
import { keyReference, portColumns } from "./columnFields.js";
import {
  defaultValue,
  dictFromRows,
  dictValueSchema,
  enumOptions,
  fieldKind,
  parseScalar,
  rowsFromDict,
  scalarText,
} from "./schemaForm.js";
import ColumnPicker from "./ColumnPicker.jsx";
import { AddButton, OptionSelect, RemoveButton, useFocusAdded } from "./controls.jsx";

const NO_ENTRIES = {};

/** Name → value rows for a dict; rows without a name are not saved. */
export default function DictRows({ id, context, path, field, value, onChange, required }) {
  const current = value ?? field.default ?? NO_ENTRIES;
  const [rows, setRows] = useState(() => rowsFromDict(current));
  // Take the value when it changed from outside (undo, another node), not while typing.
  const [taken, setTaken] = useState(current);
  if (taken !== current) {
    setTaken(current);
    if (!sameDict(dictFromRows(rows), current)) setRows(rowsFromDict(current));
  }
  const valueSchema = dictValueSchema(field) ?? {};
  const valueOptions = enumOptions(valueSchema, context.root);
  const valueKind = fieldKind(valueSchema, context.root);
  const keyPort = keyReference(field, context.root)?.port;
  const { box, added } = useFocusAdded();
  const update = (next) => {
    setRows(next);
    const dict = dictFromRows(next);
    onChange(Object.keys(dict).length || required ? dict : undefined);
  };
  const setRow = (index, patch) =>
    update(rows.map((row, at) => (at === index ? { ...row, ...patch } : row)));
  return (
    <div className="pw-rows" role="group" aria-labelledby={`${id}-label`} ref={box}>
      {rows.map((row, index) => (
        <div className="pw-row pw-row-pair" key={index} data-item="">
          {keyPort ? (
            <ColumnPicker
              id={`${id}-name-${index}`}
              label={`Name ${index + 1}`}
              ariaLabel={`Name ${index + 1}`}
              port={keyPort}
              columns={portColumns(context.schemas, keyPort)}
              value={row.key}
              placeholder="column"
              onChange={(name) => setRow(index, { key: name ?? "" })}
            />
          ) : (
            <input
              type="text"
              aria-label={`Name ${index + 1}`}
              placeholder="name"
              value={row.key}
              onChange={(event) => setRow(index, { key: event.target.value })}
            />
          )}
          {valueOptions ? (
            <OptionSelect
              aria-label={`Value ${index + 1}`}
              options={valueOptions}
              value={row.value}
              onChange={(option) => setRow(index, { value: option })}
            />
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
          <RemoveButton onClick={() => update(rows.filter((_, at) => at !== index))} />
        </div>
      ))}
      <AddButton
        onClick={() => {
          added();
          setRows([
            ...rows,
            {
              key: "",
              value: valueOptions
                ? valueOptions[0]
                : (defaultValue(valueSchema, context.root) ?? ""),
            },
          ]);
        }}
      />
      {path.length === 1 && rows.some((row) => row.key === "") ? (
        <p className="pw-hint">Rows without a name are not saved.</p>
      ) : null}
    </div>
  );
}

function sameDict(a, b) {
  return JSON.stringify(a) === JSON.stringify(b ?? {});
}
