// The heading of a workspace's pages: its name, the user's role, and links between its
// pages (Files, Settings) and back to the pipelines.

import { filesUrl, mayManage, settingsUrl } from "./roles.js";

/** The head of the page `page` ("files" or "settings") of `workspace`. */
export default function WorkspaceHead({ workspace, page }) {
  return (
    <div className="pw-home-head">
      <div>
        <p className="pw-small pw-muted">
          <a href="/">Pipelines</a> / {workspace.name}
        </p>
        <h1>
          {page === "files"
            ? `Files of ${workspace.name}`
            : `${workspace.name}: members and connections`}
        </h1>
        <p className="pw-muted">
          You are <span className={`pw-role pw-role-${workspace.role}`}>{workspace.role}</span> in
          this workspace.
        </p>
      </div>
      <nav className="pw-workspace-links" aria-label="Workspace pages">
        {page === "files" ? (
          <a className="pw-button" href={settingsUrl(workspace.slug)}>
            {mayManage(workspace.role) ? "Settings" : "Members"}
          </a>
        ) : (
          <a className="pw-button" href={filesUrl(workspace.slug)}>
            Files
          </a>
        )}
      </nav>
    </div>
  );
}
