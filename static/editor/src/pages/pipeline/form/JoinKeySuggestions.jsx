// "Join on country": while a join has no key, one button per column both inputs have.

import { joinedOn, sharedKeys } from "./joinKeys.js";

/** `params` and `schemas` of a join node; `onChange(params)` sets both keys at once. */
export default function JoinKeySuggestions({ params, schemas, onChange }) {
  const names = sharedKeys(params, schemas);
  if (!names.length) return null;
  return (
    <div className="pw-join-suggestions" role="group" aria-label="Keys both inputs have">
      <span className="pw-muted pw-small">Both inputs have</span>
      {names.map((name) => (
        <button key={name} type="button" onClick={() => onChange(joinedOn(params, name))}>
          Join on {name}
        </button>
      ))}
    </div>
  );
}
