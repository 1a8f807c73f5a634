// A path field: the text box completes from the workspace's files (a datalist), and
// "Browse…" opens the file picker (FilePickerDialog.jsx), which for an output (`writes`) also
// names a new file.

import { useContext, useState } from "react";
import { WorkspaceContext } from "../contexts.js";
import FilePickerDialog from "./FilePickerDialog.jsx";
import { matchingPaths, useFilePaths } from "./workspaceLists.js";

const SUGGESTED = 50;

export default function PathField({
  common,
  value,
  placeholder,
  readOnly,
  writes,
  title,
  onChange,
}) {
  const access = useContext(WorkspaceContext);
  const paths = useFilePaths(access);
  const [browsing, setBrowsing] = useState(false);
  const listId = `${common.id}-files`;
  const text = value ?? "";
  return (
    <div className="pw-path-field">
      <input
        {...common}
        type="text"
        list={listId}
        autoComplete="off"
        spellCheck={false}
        value={text}
        placeholder={placeholder}
        onChange={(event) => onChange(event.target.value)}
      />
      {/* Always there, so that the box is a combobox from the start, not once files arrive. */}
      <datalist id={listId}>
        {(paths ? matchingPaths(paths, text, SUGGESTED) : []).map((path) => (
          <option key={path} value={path} />
        ))}
      </datalist>
      {access && !readOnly ? (
        <button
          type="button"
          aria-label={`Browse files for ${title}`}
          onClick={() => setBrowsing(true)}
        >
          Browse…
        </button>
      ) : null}
      {browsing ? (
        <FilePickerDialog
          access={access}
          initial={text}
          writes={writes}
          onPick={(path) => {
            onChange(path);
            setBrowsing(false);
          }}
          onClose={() => setBrowsing(false)}
        />
      ) : null}
    </div>
  );
}
