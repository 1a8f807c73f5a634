// The home page: the user's pipelines with their last run, and what to do next: open one,
// create one, import one; rename, duplicate and delete (after confirming).

import { useCallback, useEffect, useRef, useState } from "react";
import Dialog from "../components/Dialog.jsx";
import Toasts from "../components/Toasts.jsx";
import { useToasts } from "../editor/useToasts.js";
import { formatTime, timeAgo } from "../format.js";
import { describeProblem } from "../problems.js";

const editorUrl = (id) => `/pipelines/${id}/`;

/** The list page. */
export default function HomeApp({ api, userName }) {
  const [pipelines, setPipelines] = useState(null);
  const [loadError, setLoadError] = useState("");
  const [renaming, setRenaming] = useState(null);
  const [deleting, setDeleting] = useState(null);
  const [importProblems, setImportProblems] = useState(null);
  const [highlight, setHighlight] = useState(null);
  const toasts = useToasts();
  const file = useRef(null);

  const load = useCallback(
    () =>
      api.get("/api/pipelines?limit=200").then(
        (answer) => {
          setPipelines(answer.items);
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

  const create = () =>
    api.post("/api/pipelines", { name: "Untitled pipeline" }).then((created) => {
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

  const importFile = async (chosen) => {
    setImportProblems(null);
    const text = await chosen.text();
    try {
      JSON.parse(text);
    } catch (error) {
      setImportProblems({ file: chosen.name, message: `not valid JSON: ${error.message}`, problems: [] });
      return;
    }
    try {
      const created = await api.post("/api/pipelines/import", text);
      await load();
      setHighlight(created.id);
      toasts.show(`Imported “${created.name}”.`, { kind: "success" });
    } catch (error) {
      setImportProblems({ file: chosen.name, message: error.message, problems: error.body.problems ?? [] });
    }
  };

  return (
    <div className="pw-home">
      <div className="pw-home-head">
        <div>
          <h1>Pipelines</h1>
          <p className="pw-muted">
            {userName ? `Welcome, ${userName}. ` : ""}Open a pipeline to edit and run it, or start a new one.
          </p>
        </div>
        <div className="pw-home-actions">
          <button type="button" onClick={() => file.current?.click()}>
            Import JSON
          </button>
          <input
            ref={file}
            type="file"
            accept="application/json,.json"
            hidden
            aria-label="Pipeline JSON file"
            onChange={(event) => {
              const chosen = event.target.files?.[0];
              event.target.value = "";
              if (chosen) importFile(chosen);
            }}
          />
          <button type="button" className="pw-primary" onClick={create}>
            New pipeline
          </button>
        </div>
      </div>
      {importProblems ? (
        <div className="pw-alert" role="alert">
          <strong>{importProblems.file} was not imported:</strong> {importProblems.message}
          {importProblems.problems.length ? (
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
      {pipelines === null && !loadError ? <p className="pw-muted">Loading…</p> : null}
      {pipelines?.length === 0 ? (
        <div className="pw-empty-state">
          <h2>No pipelines yet</h2>
          <p>
            A pipeline reads data (CSV, Excel, JSON, Parquet or SQL), processes it (filter, join, aggregate, …) and writes the
            result. You build it by dragging operators onto a canvas and connecting them.
          </p>
          <p>
            Press <strong>New pipeline</strong> to start from an empty canvas, or <strong>Import JSON</strong> to load a
            pipeline exported from Pipewright.
          </p>
          <button type="button" className="pw-primary" onClick={create}>
            New pipeline
          </button>
        </div>
      ) : null}
      {pipelines?.length ? (
        <div className="pw-card-box">
          <table className="pw-table pw-pipelines">
            <thead>
              <tr>
                <th>Name</th>
                <th>Last run</th>
                <th>Updated</th>
                <th>
                  <span className="pw-visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {pipelines.map((pipeline) => (
                <tr key={pipeline.id} className={highlight === pipeline.id ? "is-new" : undefined}>
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
                    <button type="button" onClick={() => setRenaming(pipeline.id)}>
                      Rename
                    </button>
                    <button type="button" onClick={() => duplicate(pipeline)}>
                      Duplicate
                    </button>
                    <button type="button" className="pw-danger-soft" onClick={() => setDeleting(pipeline)}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {deleting ? (
        <Dialog title={`Delete “${deleting.name}”?`} onClose={() => setDeleting(null)}>
          <p>This deletes the pipeline and its run history. It cannot be undone.</p>
          <div className="pw-dialog-actions">
            <button type="button" onClick={() => setDeleting(null)}>
              Keep it
            </button>
            <button type="button" className="pw-danger" onClick={() => remove(deleting)}>
              Delete
            </button>
          </div>
        </Dialog>
      ) : null}
      <Toasts toasts={toasts.toasts} dismiss={toasts.dismiss} />
    </div>
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
