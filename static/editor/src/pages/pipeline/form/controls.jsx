// Small controls the params form repeats: a select over a list of values, a row's Remove and
// a list's Add buttons, and the focus that follows an Add to the new row.

import { useEffect, useRef } from "react";

/** A select whose options are `options` (any values, shown as text); `onChange(option)`. */
export function OptionSelect({ options, value, onChange, blank, ...props }) {
  const index = options.findIndex((option) => option === value);
  return (
    <select
      {...props}
      value={index < 0 ? "" : String(index)}
      onChange={(event) =>
        onChange(event.target.value === "" ? undefined : options[Number(event.target.value)])
      }
    >
      {blank ? <option value="">{blank}</option> : null}
      {options.map((option, position) => (
        <option key={String(option)} value={String(position)}>
          {String(option)}
        </option>
      ))}
    </select>
  );
}

/** The × that removes a row. */
export function RemoveButton({ label = "Remove", onClick }) {
  return (
    <button
      type="button"
      className="pw-icon-button"
      aria-label={label}
      title="Remove"
      onClick={onClick}
    >
      ×
    </button>
  );
}

const FOCUSABLE = "input, select, textarea, [contenteditable='true']";

/**
 * `{box, added}`: `box` is the ref of a list's element, whose rows carry `data-item`; after
 * `added()`, the next render focuses the first field of its last row (the one just added).
 */
export function useFocusAdded() {
  const box = useRef(null);
  const pending = useRef(false);
  useEffect(() => {
    if (!pending.current) return;
    pending.current = false;
    const rows = box.current?.querySelectorAll(":scope > [data-item]");
    rows?.[rows.length - 1]?.querySelector(FOCUSABLE)?.focus();
  });
  return { box, added: () => (pending.current = true) };
}

/** The "+ Add" under a list. */
export function AddButton({ onClick }) {
  return (
    <button type="button" className="pw-add" onClick={onClick}>
      + Add
    </button>
  );
}
