// The picker of params that name columns (`format: "column"`): a searchable list of the
// columns arriving at the port the field refers to (`x-port`), each with its type. A list
// field picks several (chips). A name that is not (yet) a column can still be typed: it is
// kept, marked with a warning, since the upstream may not be connected or readable yet.

import { useId, useState } from "react";
import { matchingColumns } from "./columnFields.js";

const MAX_SHOWN = 200;

/**
 * `value` is a name (or a list of names when `multiple`); `columns` the port's `[{name,
 * type}]` or null while not known; `onChange(next)` gets the new name or list.
 */
export default function ColumnPicker({
  id,
  label,
  ariaLabel,
  port,
  columns,
  value,
  multiple = false,
  onChange,
  invalid,
  required,
  placeholder,
}) {
  const listId = useId();
  const [query, setQuery] = useState("");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const chosen = multiple ? (Array.isArray(value) ? value : []) : [];
  const known = new Set((columns ?? []).map((column) => column.name));
  const text = multiple ? query : (value ?? "");
  const shown = matchingColumns(columns ?? [], multiple ? query : open ? text : "").slice(
    0,
    MAX_SHOWN,
  );

  // Choosing closes the list, which would otherwise lie over the next field (a click there
  // would pick another column); a click in the input, typing or ArrowDown opens it again.
  const pick = (name) => {
    if (multiple) {
      onChange(chosen.includes(name) ? chosen.filter((item) => item !== name) : [...chosen, name]);
      setQuery("");
    } else {
      onChange(name);
    }
    setOpen(false);
  };
  const onKeyDown = (event) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      setOpen(true);
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((old) => (shown.length ? (old + step + shown.length) % shown.length : 0));
    } else if (event.key === "Enter") {
      // Picks and closes the list; ArrowDown reopens it.
      event.preventDefault();
      if (open && shown[active]) pick(shown[active].name);
      else if (multiple && query.trim()) pick(query.trim());
      setOpen(false);
    } else if (event.key === "Escape" || event.key === "Tab") {
      setOpen(false);
    } else if (event.key === "Backspace" && multiple && query === "" && chosen.length) {
      onChange(chosen.slice(0, -1));
    }
  };
  const unknownTyped = !multiple && text !== "" && columns && !known.has(text);
  const unknownChosen = chosen.filter((name) => columns && !known.has(name));
  return (
    <div className={`pw-picker${open ? " is-open" : ""}`}>
      {multiple && chosen.length ? (
        <ul className="pw-chips" aria-label={`${label}: chosen`}>
          {chosen.map((name) => (
            <li key={name} className={`pw-chip${columns && !known.has(name) ? " is-unknown" : ""}`}>
              <span>{name}</span>
              <button
                type="button"
                className="pw-chip-remove"
                aria-label={`Remove ${name}`}
                onClick={() => onChange(chosen.filter((item) => item !== name))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <input
        id={id}
        type="text"
        role="combobox"
        aria-label={ariaLabel}
        autoComplete="off"
        aria-expanded={open && shown.length > 0}
        aria-controls={open && shown.length ? listId : undefined}
        aria-autocomplete="list"
        aria-activedescendant={open && shown[active] ? `${listId}-${active}` : undefined}
        aria-invalid={invalid || unknownTyped || undefined}
        aria-required={required || undefined}
        className={unknownTyped ? "is-unknown" : undefined}
        placeholder={placeholder ?? (multiple ? "Add a column…" : "Column…")}
        value={text}
        onFocus={() => setOpen(true)}
        onClick={() => setOpen(true)}
        onBlur={() => {
          setOpen(false);
          if (multiple && query.trim() && !chosen.includes(query.trim())) pick(query.trim());
        }}
        onKeyDown={onKeyDown}
        onChange={(event) => {
          setOpen(true);
          setActive(0);
          if (multiple) setQuery(event.target.value);
          else onChange(event.target.value === "" ? undefined : event.target.value);
        }}
      />
      {open && shown.length ? (
        <ul
          className="pw-picker-list"
          id={listId}
          role="listbox"
          aria-label={`Columns of ${port}`}
          aria-multiselectable={multiple || undefined}
        >
          {shown.map((column, index) => {
            const selected = multiple ? chosen.includes(column.name) : column.name === value;
            return (
              <li
                key={column.name}
                id={`${listId}-${index}`}
                role="option"
                aria-selected={selected}
                className={`pw-picker-option${index === active ? " is-active" : ""}`}
                // Chosen before the input's blur closes the list.
                onMouseDown={(event) => {
                  event.preventDefault();
                  pick(column.name);
                }}
              >
                <span className="pw-picker-check" aria-hidden="true">
                  {selected ? "✓" : ""}
                </span>
                <span className="pw-picker-name">{column.name}</span>
                <span className="pw-type">{column.type}</span>
              </li>
            );
          })}
        </ul>
      ) : null}
      <PickerNote columns={columns} port={port} unknown={unknownTyped ? [text] : unknownChosen} />
    </div>
  );
}

/** Why the list is empty, or which chosen names are not columns of the port (a warning). */
function PickerNote({ columns, port, unknown }) {
  if (!columns)
    return (
      <p className="pw-hint">
        The columns of {port} appear once its input is connected and readable; you can type a name
        meanwhile.
      </p>
    );
  if (!unknown.length) return null;
  const names = unknown.map((name) => `'${name}'`).join(", ");
  return (
    <p className="pw-warning" role="status">
      {names} {unknown.length === 1 ? "is not a column" : "are not columns"} of {port} (yet).
    </p>
  );
}
