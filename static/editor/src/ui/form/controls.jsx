// Small controls the params form repeats: a select over a list of values, and a row's
// Remove and a list's Add buttons.

/** A select whose options are `options` (any values, shown as text); `onChange(option)`. */
export function OptionSelect({ options, value, onChange, blank, ...props }) {
  const index = options.findIndex((option) => option === value);
  return (
    <select {...props} value={index < 0 ? "" : String(index)} onChange={(event) => onChange(event.target.value === "" ? undefined : options[Number(event.target.value)])}>
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
    <button type="button" className="pw-icon-button" aria-label={label} title="Remove" onClick={onClick}>
      ×
    </button>
  );
}

/** The "+ Add" under a list. */
export function AddButton({ onClick }) {
  return (
    <button type="button" className="pw-add" onClick={onClick}>
      + Add
    </button>
  );
}
