// What a member's role lets the pages offer. The server decides (editor/permissions.py); the
// pages only leave out what it would refuse. Each role includes the ones before it.

/** The roles, least first, as the API spells them. */
export const ROLES = ["viewer", "editor", "admin"];

/** What each role may do, in the words the settings page shows. */
export const ROLE_MEANING = {
  viewer: "opens, previews, exports and sees runs",
  editor: "also saves and runs pipelines, uploads and deletes files",
  admin: "also manages members and connections",
};

/** Whether `role` may save and run pipelines and change the workspace's files. */
export const mayEdit = (role) => role === "editor" || role === "admin";

/** Whether `role` may manage the workspace's members and connections. */
export const mayManage = (role) => role === "admin";

/** The workspace's Files page (at `folder`, when given). */
export function filesUrl(slug, folder = "") {
  const page = `/workspaces/${encodeURIComponent(slug)}/files/`;
  return folder ? `${page}?folder=${encodeURIComponent(folder)}` : page;
}

/** The workspace's settings page (members and connections). */
export const settingsUrl = (slug) => `/workspaces/${encodeURIComponent(slug)}/`;

/** The API's base for one workspace. */
export const workspaceApi = (slug) => `/api/workspaces/${encodeURIComponent(slug)}`;

/**
 * The home page's sections: each workspace with its pipelines (the server's order of
 * workspaces: the user's own first), pipelines of a workspace not listed left out. Staff see
 * every workspace; other users' personal ones are only shown when they hold pipelines.
 */
export function groupByWorkspace(workspaces, pipelines, { staff = false } = {}) {
  const bySlug = new Map(workspaces.map((workspace) => [workspace.slug, []]));
  for (const pipeline of pipelines) bySlug.get(pipeline.workspace)?.push(pipeline);
  return workspaces
    .map((workspace) => ({ workspace, pipelines: bySlug.get(workspace.slug) }))
    .filter(
      ({ workspace, pipelines: own }) =>
        !staff || workspace.mine || !workspace.personal || own.length,
    );
}
