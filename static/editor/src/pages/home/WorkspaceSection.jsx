// One workspace on the home page: its name, the user's role, its pages, and its pipelines,
// one row each (open, rename in place, file in a folder with tags, duplicate, delete).

import { useState } from "react";
import { formatTime, timeAgo } from "../../lib/format.js";
import { filesUrl, mayEdit, mayManage, settingsUrl } from "../workspace/roles.js";
import ListTable from "../../ui/ListTable.jsx";
import { tagsFromText } from "./filing.js";

/** One workspace: its name, the user's role, its pages, and its pipelines. */
export function WorkspaceSection({ workspace, pipelines, onCreate, onImport, actions }) {
  const editable = mayEdit(workspace.role);
  const headingId = `pw-workspace-${workspace.slug}`;
  return (
    <section
      className="pw-workspace-section"
      aria-labelledby={headingId}
      data-workspace={workspace.slug}
    >
      <div className="pw-workspace-head">
        <h2 id={headingId}>{workspace.name}</h2>
        <span className={`pw-role pw-role-${workspace.role}`} title="Your role in this workspace">
          {workspace.mine ? "your workspace · " : ""}
          {workspace.role}
        </span>
        <nav className="pw-workspace-links" aria-label={`${workspace.name} pages`}>
          <a href={filesUrl(workspace.slug)}>Files</a>
          <a href={settingsUrl(workspace.slug)}>
            {mayManage(workspace.role) ? "Settings" : "Members"}
          </a>
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
          <span className="pw-muted pw-small pw-workspace-note">
            As a viewer you open, preview and export; an admin can make you an editor.
          </span>
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

function PipelineRow({
  pipeline,
  editable,
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
}) {
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
            {pipeline.description ? (
              <div className="pw-muted pw-small">{pipeline.description}</div>
            ) : null}
            {filing === pipeline.id ? (
              <FilingForm
                pipeline={pipeline}
                onDone={saveFiling}
                onDiscard={() => setFiling(null)}
              />
            ) : (
              <Filed pipeline={pipeline} searchBy={searchBy} />
            )}
          </>
        )}
      </td>
      <td>
        {pipeline.last_run ? (
          <span title={formatTime(pipeline.last_run.created_at)}>
            <span className={`pw-badge pw-status-${pipeline.last_run.status}`}>
              {pipeline.last_run.status.replace("_", " ")}
            </span>{" "}
            <span className="pw-muted pw-small">{timeAgo(pipeline.last_run.created_at)}</span>
          </span>
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
            <button
              type="button"
              onClick={() => setFiling(pipeline.id)}
              aria-label={`Tags and folder of ${pipeline.name}`}
            >
              Tags
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

/** The pipeline's folder and tags, each a button that searches for the others filed so. */
function Filed({ pipeline, searchBy }) {
  if (!pipeline.folder && !pipeline.tags.length) return null;
  return (
    <div className="pw-filed">
      {pipeline.folder ? (
        <button
          type="button"
          className="pw-folder"
          title="Folder: show the pipelines in it"
          onClick={() => searchBy("folder", pipeline.folder)}
        >
          {pipeline.folder}/
        </button>
      ) : null}
      {pipeline.tags.map((tag) => (
        <button
          key={tag}
          type="button"
          className="pw-tag"
          title="Show the pipelines with this tag"
          onClick={() => searchBy("tag", tag)}
        >
          {tag}
        </button>
      ))}
    </div>
  );
}

function FilingForm({ pipeline, onDone, onDiscard }) {
  const [folder, setFolder] = useState(pipeline.folder);
  const [tags, setTags] = useState(pipeline.tags.join(", "));
  return (
    <form
      className="pw-rename pw-filing"
      onSubmit={(event) => {
        event.preventDefault();
        onDone(pipeline, { folder, tags: tagsFromText(tags) });
      }}
      onKeyDown={(event) => {
        if (event.key === "Escape") onDiscard();
      }}
    >
      <input
        aria-label="Folder"
        placeholder="Folder, e.g. sales/monthly"
        value={folder}
        maxLength={200}
        autoFocus
        onChange={(event) => setFolder(event.target.value)}
      />
      <input
        aria-label="Tags, separated by commas"
        placeholder="Tags, separated by commas"
        value={tags}
        onChange={(event) => setTags(event.target.value)}
      />
      <button type="submit" className="pw-primary">
        Save
      </button>
      <button type="button" onClick={onDiscard}>
        Discard
      </button>
    </form>
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
