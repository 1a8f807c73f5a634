// The home page: the pipelines of each of the user's workspaces (their own first), with their
// last run, and what to do next: open one, create or import one in a workspace; rename,
// duplicate and delete (after confirming). What a viewer may not do is not offered.

import "./home.css";
import { useCallback, useEffect, useRef, useState } from "react";
import Dialog from "../../ui/Dialog.jsx";
import Toasts from "../../ui/Toasts.jsx";
import { useToasts } from "../../ui/useToasts.js";
import { formatTime, timeAgo } from "../../lib/format.js";
import { describeProblem } from "../pipeline/document/problems.js";
import { filesUrl, groupByWorkspace, mayEdit, mayManage, settingsUrl } from "../workspace/roles.js";
import JsonFileInput from "../../ui/JsonFileInput.jsx";
import ListTable from "../../ui/ListTable.jsx";
import ConfirmDialog from "../../ui/ConfirmDialog.jsx";

const editorUrl = (id) => `/pipelines/${id}/`;
const LIST_LIMIT = 200;

/** The list page. */
export default function HomeApp({ api, userName, staff }) {
  const [listing, setListing] = useState(null); // {workspaces, pipelines, count}
  const [loadError, setLoadError] = useState("");
  const [renaming, setRenaming] = useState(null);
  const [deleting, setDeleting] = useState(null);
  const [importProblems, setImportProblems] = useState(null);
  const [highlight, setHighlight] = useState(null);
  const toasts = useToasts();
  const [creatingWorkspace, setCreatingWorkspace] = useState(false);
  const file = useRef(null);
  const importInto = useRef(null);

  const load = useCallback(
    () =>
      Promise.all([api.get("/api/workspaces"), api.get(`/api/pipelines?limit=${LIST_LIMIT}`)]).then(
        ([workspaces, pipelines]) => {
          setListing({ workspaces: workspaces.items, pipelines: pipelines.items, count: pipelines.count });
          setLoadError("");
        },
        (error) => setLoadError(error.message),
      ),
    [api],
  );
  useEffect(() => {
    load();
  }, [load]);

  const fail = (what) => (error) => toasts.show(`${what}: ${error.message}`, { kind: "error" });

  const create = (workspace) =>
    api.post("/api/pipelines", { name: "Untitled pipeline", workspace: workspace.slug }).then((created) => {
      window.location.assign(editorUrl(created.id));
    }, fail("Could not create a pipeline"));

  const rename = async (pipeline, name) => {
    const trimmed = name.trim();
    setRenaming(null);
    if (!trimmed || trimmed === pipeline.name) return;
    try {
      const full = await api.get(`/api/pipelines/${pipeline.id}`);
      await api.put(`/api/pipelines/${pipeline.id}`, { ...full, name: trimmed, revision: full.revision });
      await load();
    } catch (error) {
      fail("Could not rename")(error);
    }
  };

  const duplicate = (pipeline) =>
    api.post(`/api/pipelines/${pipeline.id}/duplicate`, {}).then(async (copy) => {
      await load();
      setHighlight(copy.id);
      toasts.show(`Created “${copy.name}”.`, { kind: "success" });
    }, fail("Could not duplicate"));

  const remove = (pipeline) => {
    setDeleting(null);
    api.del(`/api/pipelines/${pipeline.id}`).then(async () => {
      await load();
      toasts.show(`Deleted “${pipeline.name}”.`);
    }, fail("Could not delete"));
  };

  const chooseImport = (workspace) => {
    importInto.current = workspace;
    file.current?.click();
  };

  const importFile = async (chosen, workspace) => {
    setImportProblems(null);
    let document;
    try {
      document = JSON.parse(await chosen.text());
    } catch (error) {
      setImportProblems({ file: chosen.name, message: `not valid JSON: ${error.message}`, problems: [] });
      return;
    }
    const body = document && typeof document === "object" && !Array.isArray(document) ? { ...document, workspace: workspace.slug } : document;
    try {
      const created = await api.post("/api/pipelines/import", body);
      await load();
      setHighlight(created.id);
      toasts.show(`Imported “${created.name}”.`, { kind: "success" });
    } catch (error) {
      setImportProblems({ file: chosen.name, message: error.message, problems: error.body.problems ?? [] });
    }
  };

  const createWorkspace = (name) =>
    api.post("/api/workspaces", { name }).then(async (created) => {
      setCreatingWorkspace(false);
      await load();
      toasts.show(`Created the workspace “${created.name}”.`, { kind: "success" });
    }, fail("Could not create the workspace"));

  const sections = listing ? groupByWorkspace(listing.workspaces, listing.pipelines, { staff }) : null;
  const total = listing?.pipelines.length ?? 0;
  const rowActions = { editorUrl, highlight, renaming, setRenaming, rename, duplicate, setDeleting };

  return (
    <div className="pw-home">
      <div className="pw-home-head">
        <div>
          <h1>Pipelines</h1>
          <p className="pw-muted">
            {userName ? `Welcome, ${userName}. ` : ""}Open a pipeline to edit and run it, or start a new one in a workspace.
          </p>
        </div>
        {staff ? (
          <div className="pw-home-actions">
            <button type="button" onClick={() => setCreatingWorkspace(true)}>
              New workspace
            </button>
          </div>
        ) : null}
        <JsonFileInput ref={file} onChoose={(chosen) => importInto.current && importFile(chosen, importInto.current)} />
      </div>
      {importProblems ? (
        <div className="pw-alert" role="alert">
          <strong>{importProblems.file} was not imported:</strong> {importProblems.message}
          {importProblems.problems.length > 1 ? (
            <ul>
              {importProblems.problems.map((problem, index) => (
                <li key={index}>{describeProblem(problem, true)}</li>
              ))}
            </ul>
          ) : null}
          <button type="button" className="pw-icon-button" aria-label="Dismiss" onClick={() => setImportProblems(null)}>
            ×
          </button>
        </div>
      ) : null}
      {loadError ? (
        <p className="pw-alert" role="alert">
          The pipelines could not be loaded: {loadError}
        </p>
      ) : null}
      {listing === null && !loadError ? <p className="pw-muted">Loading…</p> : null}
      {listing && total === 0 ? (
        <div className="pw-empty-state">
          <h2>No pipelines yet</h2>
          <p>
            A pipeline reads data (CSV, Excel, JSON, Parquet or SQL), processes it (filter, join, aggregate, …) and writes the
            result. You build it by dragging operators onto a canvas and connecting them.
          </p>
          <p>
            Press <strong>New pipeline</strong> in a workspace to start from an empty canvas, or <strong>Import JSON</strong> to
            load a pipeline exported from Pipewright. Put your data files in the workspace's <strong>Files</strong>.
          </p>
        </div>
      ) : null}
      {listing && listing.count > total ? (
        <p className="pw-muted">
          Showing the {total} most recently changed of {listing.count} pipelines.
        </p>
      ) : null}
      {sections?.map(({ workspace, pipelines }) => (
        <WorkspaceSection key={workspace.slug} workspace={workspace} pipelines={pipelines} onCreate={create} onImport={chooseImport} actions={rowActions} />
      ))}
      {deleting ? (
        <ConfirmDialog title={`Delete “${deleting.name}”?`} onConfirm={() => remove(deleting)} onClose={() => setDeleting(null)}>
          This deletes the pipeline and its run history. It cannot be undone.
        </ConfirmDialog>
      ) : null}
      {creatingWorkspace ? <NewWorkspaceDialog onCreate={createWorkspace} onClose={() => setCreatingWorkspace(false)} /> : null}
      <Toasts toasts={toasts.toasts} dismiss={toasts.dismiss} />
    </div>
  );
}

/** One workspace: its name, the user's role, its pages, and its pipelines. */
function WorkspaceSection({ workspace, pipelines, onCreate, onImport, actions }) {
  const editable = mayEdit(workspace.role);
  const headingId = `pw-workspace-${workspace.slug}`;
  return (
    <section className="pw-workspace-section" aria-labelledby={headingId} data-workspace={workspace.slug}>
      <div className="pw-workspace-head">
        <h2 id={headingId}>{workspace.name}</h2>
        <span className={`pw-role pw-role-${workspace.role}`} title="Your role in this workspace">
          {workspace.mine ? "your workspace · " : ""}
          {workspace.role}
        </span>
        <nav className="pw-workspace-links" aria-label={`${workspace.name} pages`}>
          <a href={filesUrl(workspace.slug)}>Files</a>
          <a href={settingsUrl(workspace.slug)}>{mayManage(workspace.role) ? "Settings" : "Members"}</a>
        </nav>
        {editable ? (
          <div className="pw-home-actions">
            <button type="button" onClick={() => onImport(workspace)}>
              Import JSON
            </button>
            <button type="button" className="pw-primary" onClick={() => onCreate(workspace)}>
              New pipeline
            </button>
          </div>
        ) : (
          <span className="pw-muted pw-small pw-workspace-note">As a viewer you open, preview and export; an admin can make you an editor.</span>
        )}
      </div>
      {pipelines.length ? (
        <ListTable columns={["Name", "Last run", "Updated"]} className="pw-pipeline-list">
          {pipelines.map((pipeline) => (
            <PipelineRow key={pipeline.id} pipeline={pipeline} editable={editable} {...actions} />
          ))}
        </ListTable>
      ) : (
        <p className="pw-muted pw-workspace-empty">No pipelines in this workspace yet.</p>
      )}
    </section>
  );
}

function PipelineRow({ pipeline, editable, editorUrl, highlight, renaming, setRenaming, rename, duplicate, setDeleting }) {
  return (
    <tr className={highlight === pipeline.id ? "is-new" : undefined}>
      <td>
        {renaming === pipeline.id ? (
          <RenameForm pipeline={pipeline} onDone={rename} onDiscard={() => setRenaming(null)} />
        ) : (
          <>
            <a className="pw-pipeline-name" href={editorUrl(pipeline.id)}>
              {pipeline.name}
            </a>
            {pipeline.description ? <div className="pw-muted pw-small">{pipeline.description}</div> : null}
          </>
        )}
      </td>
      <td>
        {pipeline.last_run ? (
          <span className={`pw-badge pw-status-${pipeline.last_run.status}`}>{pipeline.last_run.status.replace("_", " ")}</span>
        ) : (
          <span className="pw-muted">never run</span>
        )}
      </td>
      <td title={formatTime(pipeline.updated_at)}>{timeAgo(pipeline.updated_at)}</td>
      <td className="pw-row-actions">
        <a className="pw-button pw-primary-soft" href={editorUrl(pipeline.id)}>
          Open
        </a>
        {editable ? (
          <>
            <button type="button" onClick={() => setRenaming(pipeline.id)}>
              Rename
            </button>
            <button type="button" onClick={() => duplicate(pipeline)}>
              Duplicate
            </button>
            <button type="button" className="pw-danger-soft" onClick={() => setDeleting(pipeline)}>
              Delete
            </button>
          </>
        ) : null}
      </td>
    </tr>
  );
}

function NewWorkspaceDialog({ onCreate, onClose }) {
  const [name, setName] = useState("");
  return (
    <Dialog title="New shared workspace" onClose={onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (name.trim()) onCreate(name.trim());
        }}
      >
        <div className="pw-field">
          <label className="pw-label" htmlFor="pw-new-workspace-name">
            Name
          </label>
          <input id="pw-new-workspace-name" value={name} maxLength={200} onChange={(event) => setName(event.target.value)} />
          <p className="pw-hint">You become its admin; add members on its settings page. Its folder's name is made from the name and never changes.</p>
        </div>
        <div className="pw-dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="pw-primary" disabled={!name.trim()}>
            Create
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function RenameForm({ pipeline, onDone, onDiscard }) {
  const [name, setName] = useState(pipeline.name);
  return (
    <form
      className="pw-rename"
      onSubmit={(event) => {
        event.preventDefault();
        onDone(pipeline, name);
      }}
    >
      <input
        aria-label="New name"
        value={name}
        maxLength={200}
        autoFocus
        onChange={(event) => setName(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape") onDiscard();
        }}
      />
      <button type="submit" className="pw-primary">
        Save name
      </button>
      <button type="button" onClick={onDiscard}>
        Discard
      </button>
    </form>
  );
}
