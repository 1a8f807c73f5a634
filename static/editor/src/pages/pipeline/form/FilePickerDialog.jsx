// "Browse…" of a path field: the workspace's folders (and shared/), a search over every file,
// an upload into the folder shown, and the first rows of the chosen file; "Use this file" puts
// its path in the field. For an output (`writes`) a file name is typed too, new or existing,
// and "Write here" puts that name in the folder shown in the field.

import "./filePicker.css";
import { useCallback, useEffect, useRef, useState } from "react";
import Dialog from "../../../ui/Dialog.jsx";
import {
  breadcrumbs,
  formatSize,
  isNameTaken,
  listUrl,
  uploadForm,
  uploadProblem,
} from "../../workspace/files.js";
import { mayEdit, workspaceApi } from "../../workspace/roles.js";
import {
  folderOf,
  matchingPaths,
  nameOf,
  pathIn,
  refreshWorkspaceLists,
  useFilePaths,
} from "./workspaceLists.js";

const previewUrl = (slug, path) =>
  `${workspaceApi(slug)}/files/preview?path=${encodeURIComponent(path)}`;

/** `access` is `{api, workspace}`; `initial` the field's path; `writes` for an output's;
 * `onPick(path)`. */
export default function FilePickerDialog({ access, initial, writes = false, onPick, onClose }) {
  const { api, workspace } = access;
  const [folder, setFolder] = useState(() => folderOf(initial));
  const [entries, setEntries] = useState(null);
  const [problem, setProblem] = useState("");
  const [query, setQuery] = useState("");
  const [picked, setChosen] = useState("");
  const [name, setName] = useState(() => (writes ? nameOf(initial) : ""));
  const [preview, setPreview] = useState(null); // {path, columns, rows} | {path, error}
  const [uploading, setUploading] = useState(null);
  const [taken, setTaken] = useState(null);
  const chooser = useRef(null);
  const paths = useFilePaths(access);
  const target = writes ? pathIn(folder, name) : "";
  const existing = (path) => (paths?.includes(path) ? path : "");
  // What the preview shows: the file picked, else the field's (or the name typed) if it exists.
  const chosen = writes ? existing(target) : picked || existing(initial);
  const list = useCallback(
    (where) =>
      api.get(listUrl(workspace.slug, where)).then(
        (answer) => setEntries(answer.items),
        (error) => {
          if (where)
            setFolder(""); // a folder that is not there (yet): the top instead
          else setProblem(error.message);
        },
      ),
    [api, workspace.slug],
  );
  // Another folder shows "Loading" until its entries arrive (set while rendering).
  const [listed, setListed] = useState(folder);
  if (listed !== folder) {
    setListed(folder);
    setEntries(null);
  }
  useEffect(() => {
    list(folder);
  }, [list, folder]);

  useEffect(() => {
    if (!chosen) return undefined;
    let live = true;
    api.get(previewUrl(workspace.slug, chosen)).then(
      (answer) => live && setPreview({ path: chosen, ...answer }),
      (error) => live && setPreview({ path: chosen, error: error.message }),
    );
    return () => {
      live = false;
    };
  }, [api, workspace.slug, chosen]);

  const upload = async (file, replace = false) => {
    setTaken(null);
    setProblem("");
    setUploading(file.name);
    try {
      const { path } = await api.post(
        `${workspaceApi(workspace.slug)}/files`,
        uploadForm(file, folder, replace),
      );
      refreshWorkspaceLists(workspace.slug);
      await list(folder);
      setQuery("");
      setChosen(path);
    } catch (error) {
      if (isNameTaken(error)) setTaken(file);
      else setProblem(uploadProblem(file.name, error));
    } finally {
      setUploading(null);
    }
  };

  const writable = mayEdit(workspace.role) && folder !== "shared" && !folder.startsWith("shared/");
  const searching = query.trim() !== "";
  const found = searching ? matchingPaths(paths, query) : null;
  const crumbs = breadcrumbs(folder, workspace.name);
  const open = (entry) => {
    if (entry.kind === "folder") setFolder(entry.path);
    else if (writes) {
      setQuery("");
      setFolder(folderOf(entry.path));
      setName(nameOf(entry.path));
    } else setChosen(entry.path);
  };

  return (
    <Dialog title={writes ? "Choose where to write" : "Choose a file"} onClose={onClose} wide>
      <div className="pw-file-picker">
        <div className="pw-file-picker-bar">
          <input
            type="search"
            aria-label="Search every file"
            placeholder="Search every file…"
            value={query}
            onChange={(event) => setQuery(event.target.value)}
          />
          {writable ? (
            <>
              <button
                type="button"
                disabled={uploading !== null}
                onClick={() => chooser.current?.click()}
              >
                {uploading ? `Uploading ${uploading}…` : "Upload here…"}
              </button>
              <input
                ref={chooser}
                type="file"
                hidden
                aria-label="File to upload"
                onChange={(event) => {
                  const file = event.target.files?.[0];
                  event.target.value = "";
                  if (file) upload(file);
                }}
              />
            </>
          ) : null}
        </div>
        {searching ? null : (
          <nav aria-label="Folder" className="pw-file-picker-crumbs">
            {crumbs.map((crumb, index) => (
              <span key={crumb.folder}>
                {index ? " / " : ""}
                {index === crumbs.length - 1 ? (
                  <strong aria-current="location">{crumb.name}</strong>
                ) : (
                  <button type="button" className="pw-link" onClick={() => setFolder(crumb.folder)}>
                    {crumb.name}
                  </button>
                )}
              </span>
            ))}
          </nav>
        )}
        {problem ? (
          <p className="pw-test-result pw-test-failed" role="alert">
            {problem}
          </p>
        ) : null}
        {taken ? (
          <p className="pw-test-result pw-test-failed" role="alert">
            {[folder, taken.name].filter(Boolean).join("/")} exists already.{" "}
            <button type="button" onClick={() => upload(taken, true)}>
              Replace it
            </button>{" "}
            <button type="button" onClick={() => setTaken(null)}>
              Keep the old one
            </button>
          </p>
        ) : null}
        <div className="pw-file-picker-body">
          <ul className="pw-file-picker-list" aria-label={searching ? "Files found" : "Files"}>
            {searching
              ? found.map((path) => (
                  <FileRow
                    key={path}
                    entry={{ path, name: path, kind: "file" }}
                    chosen={chosen === path}
                    onOpen={open}
                    onPick={onPick}
                  />
                ))
              : (entries ?? []).map((entry) => (
                  <FileRow
                    key={entry.path}
                    entry={entry}
                    chosen={chosen === entry.path}
                    onOpen={open}
                    onPick={onPick}
                  />
                ))}
            {searching && !found.length ? <li className="pw-muted">No file matches.</li> : null}
            {!searching && entries?.length === 0 ? (
              <li className="pw-muted">This folder is empty.</li>
            ) : null}
            {!searching && entries === null ? <li className="pw-muted">Loading…</li> : null}
          </ul>
          <FilePreview chosen={chosen} preview={preview} />
        </div>
        <div className="pw-dialog-actions">
          {writes ? (
            <label className="pw-file-picker-name-field">
              File name
              <input
                type="text"
                value={name}
                spellCheck={false}
                onChange={(event) => setName(event.target.value)}
              />
            </label>
          ) : (
            <span className="pw-muted pw-small pw-file-picker-chosen">{chosen}</span>
          )}
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          {writes ? (
            <button
              type="button"
              className="pw-primary"
              disabled={!name.trim()}
              title={chosen ? `${target} exists: a run replaces it` : target}
              onClick={() => onPick(target)}
            >
              Write here
            </button>
          ) : (
            <button
              type="button"
              className="pw-primary"
              disabled={!chosen}
              onClick={() => onPick(chosen)}
            >
              Use this file
            </button>
          )}
        </div>
      </div>
    </Dialog>
  );
}

function FileRow({ entry, chosen, onOpen, onPick }) {
  const folder = entry.kind === "folder";
  return (
    <li>
      <button
        type="button"
        className={`pw-file-picker-row${chosen ? " is-chosen" : ""}`}
        aria-pressed={folder ? undefined : chosen}
        data-path={entry.path}
        onClick={() => onOpen(entry)}
        onDoubleClick={() => !folder && onPick(entry.path)}
      >
        <span aria-hidden="true">{folder ? "▸ " : ""}</span>
        <span className="pw-file-picker-name">{entry.name}</span>
        {folder ? <span className="pw-muted"> folder</span> : null}
        {entry.size != null ? <span className="pw-muted">{formatSize(entry.size)}</span> : null}
      </button>
    </li>
  );
}

function FilePreview({ chosen, preview }) {
  if (!chosen) {
    return <p className="pw-file-picker-preview pw-muted">Choose a file to see its first rows.</p>;
  }
  if (!preview || preview.path !== chosen) {
    return <p className="pw-file-picker-preview pw-muted">Reading {chosen}…</p>;
  }
  if (preview.error) {
    return (
      <p className="pw-file-picker-preview pw-muted" role="status">
        No preview: {preview.error}
      </p>
    );
  }
  return (
    <div className="pw-file-picker-preview" role="region" aria-label={`First rows of ${chosen}`}>
      <table>
        <thead>
          <tr>
            {preview.columns.map((column) => (
              <th key={column.name} scope="col">
                {column.name}
                <span className="pw-muted"> {column.type}</span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {preview.rows.map((row, index) => (
            <tr key={index}>
              {row.map((value, position) => (
                <td key={position}>{value === null ? "" : String(value)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
