// The home page: the pipelines of each of the user's workspaces (their own first), with their
// last run, and what to do next: open one, create or import one in a workspace; rename,
// duplicate and delete (after confirming); file one in a folder with tags. A search (name,
// tag, folder, operator, file or connection) and an order (last run first by default) apply
// to every workspace. What a viewer may not do is not offered.

import "./home.css";
import { useCallback, useEffect, useRef, useState } from "react";
import Dialog from "../../ui/Dialog.jsx";
import Toasts from "../../ui/Toasts.jsx";
import { useToasts } from "../../ui/useToasts.js";
import { describeProblem } from "../pipeline/document/problems.js";
import { groupByWorkspace } from "../workspace/roles.js";
import JsonFileInput from "../../ui/JsonFileInput.jsx";
import ConfirmDialog from "../../ui/ConfirmDialog.jsx";
import { WorkspaceSection } from "./WorkspaceSection.jsx";
import { listUrl, searchFor } from "./filing.js";

const editorUrl = (id) => `/pipelines/${id}/`;
const LIST_LIMIT = 200;
const SEARCH_DELAY_MS = 250; // one request when the user stops typing, not one per key
const SORTS = [
  ["last_run", "Last run"],
  ["updated", "Last change"],
  ["name", "Name"],
];

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
  const [filing, setFiling] = useState(null); // the id of the pipeline whose folder and tags are edited
  const [query, setQuery] = useState("");
  const [searched, setSearched] = useState("");
  const [sort, setSort] = useState("last_run");
  const file = useRef(null);
  const importInto = useRef(null);

  useEffect(() => {
    const timer = window.setTimeout(() => setSearched(query), SEARCH_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [query]);

  const load = useCallback(
    () =>
      Promise.all([
        api.get("/api/workspaces"),
        api.get(listUrl({ query: searched, sort, limit: LIST_LIMIT })),
      ]).then(
        ([workspaces, pipelines]) => {
          setListing({
            workspaces: workspaces.items,
            pipelines: pipelines.items,
            count: pipelines.count,
          });
          setLoadError("");
        },
        (error) => setLoadError(error.message),
      ),
    [api, searched, sort],
  );
  useEffect(() => {
    load();
  }, [load]);

  const fail = (what) => (error) => toasts.show(`${what}: ${error.message}`, { kind: "error" });

  const create = (workspace) =>
    api
      .post("/api/pipelines", { name: "Untitled pipeline", workspace: workspace.slug })
      .then((created) => {
        window.location.assign(editorUrl(created.id));
      }, fail("Could not create a pipeline"));

  const rename = async (pipeline, name) => {
    const trimmed = name.trim();
    setRenaming(null);
    if (!trimmed || trimmed === pipeline.name) return;
    try {
      const full = await api.get(`/api/pipelines/${pipeline.id}`);
      await api.put(`/api/pipelines/${pipeline.id}`, {
        ...full,
        name: trimmed,
        revision: full.revision,
      });
      await load();
    } catch (error) {
      fail("Could not rename")(error);
    }
  };

  const saveFiling = async (pipeline, filed) => {
    setFiling(null);
    try {
      await api.put(`/api/pipelines/${pipeline.id}/filing`, filed);
      await load();
    } catch (error) {
      fail("Could not set the folder and tags")(error);
    }
  };

  const search = (text) => {
    setQuery(text);
    setSearched(text);
  };
  const searchBy = (kind, value) => search(searchFor(kind, value));

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
      setImportProblems({
        file: chosen.name,
        message: `not valid JSON: ${error.message}`,
        problems: [],
      });
      return;
    }
    const body =
      document && typeof document === "object" && !Array.isArray(document)
        ? { ...document, workspace: workspace.slug }
        : document;
    try {
      const created = await api.post("/api/pipelines/import", body);
      await load();
      setHighlight(created.id);
      toasts.show(`Imported “${created.name}”.`, { kind: "success" });
    } catch (error) {
      setImportProblems({
        file: chosen.name,
        message: error.message,
        problems: error.body.problems ?? [],
      });
    }
  };

  const createWorkspace = (name) =>
    api.post("/api/workspaces", { name }).then(async (created) => {
      setCreatingWorkspace(false);
      await load();
      toasts.show(`Created the workspace “${created.name}”.`, { kind: "success" });
    }, fail("Could not create the workspace"));

  const searching = searched.trim() !== "";
  const sections = listing
    ? groupByWorkspace(listing.workspaces, listing.pipelines, { staff }).filter(
        (section) => !searching || section.pipelines.length,
      )
    : null;
  const total = listing?.pipelines.length ?? 0;
  const rowActions = {
    editorUrl,
    highlight,
    renaming,
    setRenaming,
    rename,
    duplicate,
    setDeleting,
    filing,
    setFiling,
    saveFiling,
    searchBy,
  };

  return (
    <div className="pw-home">
      <div className="pw-home-head">
        <div>
          <h1>Pipelines</h1>
          <p className="pw-muted">
            {userName ? `Welcome, ${userName}. ` : ""}Open a pipeline to edit and run it, or start a
            new one in a workspace.
          </p>
        </div>
        {staff ? (
          <div className="pw-home-actions">
            <button type="button" onClick={() => setCreatingWorkspace(true)}>
              New workspace
            </button>
          </div>
        ) : null}
        <JsonFileInput
          ref={file}
          onChoose={(chosen) => importInto.current && importFile(chosen, importInto.current)}
        />
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
          <button
            type="button"
            className="pw-icon-button"
            aria-label="Dismiss"
            onClick={() => setImportProblems(null)}
          >
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
      <div className="pw-home-search" role="search">
        <input
          type="search"
          aria-label="Search pipelines"
          placeholder="Search by name, tag, folder, operator, file or connection (tag:kpi, folder:sales)"
          maxLength={200}
          value={query}
          onChange={(event) => setQuery(event.target.value)}
        />
        <label>
          Sort by{" "}
          <select value={sort} onChange={(event) => setSort(event.target.value)}>
            {SORTS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </div>
      {listing && searching ? (
        <p className="pw-muted" role="status">
          {listing.count === 1 ? "1 pipeline matches" : `${listing.count} pipelines match`} “
          {searched.trim()}”.{" "}
          <button type="button" className="pw-link-button" onClick={() => search("")}>
            Show all
          </button>
        </p>
      ) : null}
      {listing && total === 0 && !searching ? (
        <div className="pw-empty-state">
          <h2>No pipelines yet</h2>
          <p>
            A pipeline reads data (CSV, Excel, JSON, Parquet or SQL), processes it (filter, join,
            aggregate, …) and writes the result. You build it by dragging operators onto a canvas
            and connecting them.
          </p>
          <p>
            Press <strong>New pipeline</strong> in a workspace to start from an empty canvas, or{" "}
            <strong>Import JSON</strong> to load a pipeline exported from Pipewright. Put your data
            files in the workspace's <strong>Files</strong>.
          </p>
        </div>
      ) : null}
      {listing && listing.count > total ? (
        <p className="pw-muted">
          Showing the first {total} of {listing.count} pipelines.
        </p>
      ) : null}
      {sections?.map(({ workspace, pipelines }) => (
        <WorkspaceSection
          key={workspace.slug}
          workspace={workspace}
          pipelines={pipelines}
          onCreate={create}
          onImport={chooseImport}
          actions={rowActions}
        />
      ))}
      {deleting ? (
        <ConfirmDialog
          title={`Delete “${deleting.name}”?`}
          onConfirm={() => remove(deleting)}
          onClose={() => setDeleting(null)}
        >
          This deletes the pipeline and its run history. It cannot be undone.
        </ConfirmDialog>
      ) : null}
      {creatingWorkspace ? (
        <NewWorkspaceDialog
          onCreate={createWorkspace}
          onClose={() => setCreatingWorkspace(false)}
        />
      ) : null}
      <Toasts toasts={toasts.toasts} dismiss={toasts.dismiss} />
    </div>
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
          <input
            id="pw-new-workspace-name"
            value={name}
            maxLength={200}
            onChange={(event) => setName(event.target.value)}
          />
          <p className="pw-hint">
            You become its admin; add members on its settings page. Its folder's name is made from
            the name and never changes.
          </p>
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
