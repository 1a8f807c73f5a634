// Asks for the values of the pipeline's parameters before a run (defaults filled in).

import { useState } from "react";
import { runOptionTitle } from "./runOptions.js";
import { jsonishText, parseJsonish } from "../form/schemaForm.js";
import Dialog from "../../../ui/Dialog.jsx";

/** `onStart(parameters, options)` starts the run with the values typed (read as JSON when they
 * parse) and the run's `options` as given (runOptions.js). */
export default function RunDialog({ parameters, options, onStart, onClose }) {
  const [values, setValues] = useState(() =>
    Object.fromEntries(
      Object.entries(parameters).map(([name, value]) => [name, jsonishText(value)]),
    ),
  );
  return (
    <Dialog title={`${runOptionTitle(options)} with parameters`} onClose={onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onStart(
            Object.fromEntries(
              Object.entries(values).map(([name, text]) => [name, parseJsonish(text)]),
            ),
            options,
          );
        }}
      >
        {Object.keys(values).map((name) => (
          <div className="pw-field" key={name}>
            <label className="pw-label" htmlFor={`pw-param-${name}`}>
              {name}
            </label>
            <input
              id={`pw-param-${name}`}
              value={values[name]}
              onChange={(event) => setValues({ ...values, [name]: event.target.value })}
            />
          </div>
        ))}
        <div className="pw-dialog-actions">
          <button type="button" onClick={onClose}>
            Close
          </button>
          <button type="submit" className="pw-primary">
            Start
          </button>
        </div>
      </form>
    </Dialog>
  );
}
