// A workspace's Files page: browse its folders (and the shared one), upload into a folder
// (replacing a file of that name after confirming), download, copy a file's path as a
// pipeline's `path` takes it, delete after confirming.
// Viewers and read-only folders (shared/, unless staff) get no upload or delete.

import "./workspace.css";
import { useCallback, useEffect, useRef, useState } from "react";
import Toasts from "../../ui/Toasts.jsx";
import { useToasts } from "../../ui/useToasts.js";
import { formatTime, timeAgo } from "../../lib/format.js";
import {
  breadcrumbs,
  deleteUrl,
  downloadUrl,
  formatSize,
  isNameTaken,
  isReadOnlyFolder,
  isTaken,
  listUrl,
  mayDelete,
  uploadForm,
  uploadProblem,
} from "./files.js";
import { filesUrl, mayEdit, workspaceApi } from "./roles.js";
import WorkspaceHead from "./WorkspaceHead.jsx";
import ListTable from "../../ui/ListTable.jsx";
import ConfirmDialog from "../../ui/ConfirmDialog.jsx";

const FILE_COLUMNS = [
  "Name",
  "Path in a pipeline",
  { label: "Size", className: "pw-number" },
  "Modified",
];

const folderInAddress = () => new URLSearchParams(window.location.search).get("folder") ?? "";

/** The page for `workspace` ({slug, name, role}); `staff` may change the shared folder. */
export default function FilesApp({ api, workspace, staff }) {
  const [folder, setFolder] = useState(folderInAddress);
  const [entries, setEntries] = useState(null);
  const [loadError, setLoadError] = useState("");
  const [uploading, setUploading] = useState(null);
  const [deleting, setDeleting] = useState(null);
  const [replacing, setReplacing] = useState(null);
  const toasts = useToasts();
  const chooser = useRef(null);
  const writable = mayEdit(workspace.role) && !isReadOnlyFolder(folder, staff);

  const load = useCallback(
    () =>
      api.get(listUrl(workspace.slug, folder)).then(
        (answer) => {
          setEntries(answer.items);
          setLoadError("");
        },
        (error) => {
          setEntries([]);
          setLoadError(error.message);
        },
      ),
    [api, workspace.slug, folder],
  );
  // Another folder shows "Loading" until its entries arrive (set while rendering).
  const listing = `${workspace.slug}/${folder}`;
  const [listed, setListed] = useState(listing);
  if (listed !== listing) {
    setListed(listing);
    setEntries(null);
  }
  useEffect(() => {
    load();
  }, [load]);
  useEffect(() => {
    const onBack = () => setFolder(folderInAddress());
    window.addEventListener("popstate", onBack);
    return () => window.removeEventListener("popstate", onBack);
  }, []);

  const openFolder = (next) => {
    window.history.pushState(null, "", filesUrl(workspace.slug, next));
    setFolder(next);
  };

  const upload = async (chosen, replace = false) => {
    setReplacing(null);
    setUploading(chosen.name);
    try {
      const { path } = await api.post(
        `${workspaceApi(workspace.slug)}/files`,
        uploadForm(chosen, folder, replace),
      );
      await load();
      toasts.show(`${replace ? "Replaced" : "Uploaded"} ${path}.`, { kind: "success" });
    } catch (error) {
      if (isNameTaken(error)) setReplacing(chosen);
      else toasts.show(uploadProblem(chosen.name, error), { kind: "error" });
    } finally {
      setUploading(null);
    }
  };

  const remove = async (entry) => {
    setDeleting(null);
    try {
      await api.del(deleteUrl(workspace.slug, entry.path));
      await load();
      toasts.show(`Deleted ${entry.path}.`);
    } catch (error) {
      toasts.show(`${entry.path} was not deleted: ${error.message}`, { kind: "error" });
    }
  };

  const copyPath = async (entry) => {
    try {
      await navigator.clipboard.writeText(entry.path);
      toasts.show(`Copied “${entry.path}”: paste it into an input's or output's path.`);
    } catch {
      toasts.show(`The browser did not allow copying. The path is: ${entry.path}`, { timeout: 0 });
    }
  };

  const crumbs = breadcrumbs(folder, workspace.name);
  return (
    <div className="pw-home pw-files">
      <WorkspaceHead workspace={workspace} page="files" />
      <div className="pw-files-bar">
        <nav aria-label="Folder" className="pw-breadcrumbs">
          <ol>
            {crumbs.map((crumb, index) => (
              <li key={crumb.folder}>
                {index === crumbs.length - 1 ? (
                  <span aria-current="page">{crumb.name}</span>
                ) : (
                  <a
                    href={filesUrl(workspace.slug, crumb.folder)}
                    onClick={(event) => {
                      event.preventDefault();
                      openFolder(crumb.folder);
                    }}
                  >
                    {crumb.name}
                  </a>
                )}
              </li>
            ))}
          </ol>
        </nav>
        {writable ? (
          <>
            <button
              type="button"
              className="pw-primary"
              disabled={uploading !== null}
              onClick={() => chooser.current?.click()}
            >
              {uploading ? `Uploading ${uploading}…` : "Upload file"}
            </button>
            <input
              ref={chooser}
              type="file"
              hidden
              aria-label="File to upload"
              onChange={(event) => {
                const chosen = event.target.files?.[0];
                event.target.value = "";
                if (chosen && isTaken(entries, chosen.name)) setReplacing(chosen);
                else if (chosen) upload(chosen);
              }}
            />
          </>
        ) : (
          <span className="pw-muted pw-small" role="note">
            {mayEdit(workspace.role)
              ? "The shared folder is read-only: staff put files here."
              : `Read only: you are a viewer in ${workspace.name}.`}
          </span>
        )}
      </div>
      {loadError ? (
        <p className="pw-alert" role="alert">
          The folder could not be listed: {loadError}
        </p>
      ) : null}
      {entries === null ? <p className="pw-muted">Loading…</p> : null}
      {entries?.length === 0 && !loadError ? (
        <div className="pw-empty-state">
          <h2>This folder is empty</h2>
          <p>
            {writable
              ? "Upload a CSV, Excel, JSON or Parquet file; pipelines of this workspace read it by the path shown here."
              : "Nothing has been put here yet."}
          </p>
        </div>
      ) : null}
      {entries?.length ? (
        <ListTable columns={FILE_COLUMNS} className="pw-file-table">
          {entries.map((entry) => (
            <tr key={entry.path} data-path={entry.path}>
              <td>
                {entry.kind === "folder" ? (
                  <a
                    className="pw-pipeline-name pw-folder-link"
                    href={filesUrl(workspace.slug, entry.path)}
                    onClick={(event) => {
                      event.preventDefault();
                      openFolder(entry.path);
                    }}
                  >
                    <span aria-hidden="true">▸ </span>
                    {entry.name}
                  </a>
                ) : (
                  <span className="pw-file-name">{entry.name}</span>
                )}
                {entry.read_only && entry.path === "shared" ? (
                  <span className="pw-role pw-role-viewer">read-only</span>
                ) : null}
              </td>
              <td>
                <code className="pw-path">{entry.path}</code>
              </td>
              <td className="pw-number">{formatSize(entry.size)}</td>
              <td title={entry.modified ? formatTime(entry.modified) : ""}>
                {entry.modified ? timeAgo(entry.modified) : ""}
              </td>
              <td className="pw-row-actions">
                {entry.kind === "file" ? (
                  <>
                    <button
                      type="button"
                      onClick={() => copyPath(entry)}
                      aria-label={`Copy path of ${entry.name}`}
                      title="Copy the path a pipeline's path field takes"
                    >
                      Copy path
                    </button>
                    <a
                      className="pw-button"
                      href={downloadUrl(workspace.slug, entry.path)}
                      download
                      aria-label={`Download ${entry.name}`}
                    >
                      Download
                    </a>
                  </>
                ) : null}
                {mayDelete(entry, workspace.role) ? (
                  <button
                    type="button"
                    className="pw-danger-soft"
                    onClick={() => setDeleting(entry)}
                    aria-label={`Delete ${entry.name}`}
                  >
                    Delete
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </ListTable>
      ) : null}
      <p className="pw-muted pw-small pw-files-note">
        Pipelines of this workspace name a file by its path here; <code>shared/…</code> is the
        folder every workspace reads.
      </p>
      {deleting ? (
        <ConfirmDialog
          title={`Delete ${deleting.path}?`}
          onConfirm={() => remove(deleting)}
          onClose={() => setDeleting(null)}
        >
          {deleting.kind === "folder"
            ? "The folder is deleted if it is empty."
            : "Pipelines that read this file will fail until it is uploaded again. It cannot be undone."}
        </ConfirmDialog>
      ) : null}
      {replacing ? (
        <ConfirmDialog
          title={`Replace ${[folder, replacing.name].filter(Boolean).join("/")}?`}
          keepLabel="Keep the old one"
          actLabel="Replace"
          onConfirm={() => upload(replacing, true)}
          onClose={() => setReplacing(null)}
        >
          A file of this name is here already. Pipelines that read it will read the new one from
          their next run; the old one cannot be brought back.
        </ConfirmDialog>
      ) : null}
      <Toasts toasts={toasts.toasts} dismiss={toasts.dismiss} />
    </div>
  );
}
