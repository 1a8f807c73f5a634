// The Files page's pure parts: where a folder sits (breadcrumbs), what may change in it, how
// sizes read, the API's addresses for listing, downloading and deleting, and an upload's form
// (which never replaces a file unless the user said so).

import { mayEdit, workspaceApi } from "./roles.js";

/** The folder every workspace reads; only staff write it. */
export const SHARED = "shared";

/** `a/b` → the crumbs from the workspace's top: [{name: top, folder: ""}, {a}, {a/b}]. */
export function breadcrumbs(folder, top) {
  const parts = folder.split("/").filter(Boolean);
  return [
    { name: top, folder: "" },
    ...parts.map((name, index) => ({ name, folder: parts.slice(0, index + 1).join("/") })),
  ];
}

/** Whether `folder` is inside the shared folder, which only staff may change. */
export function isReadOnlyFolder(folder, staff) {
  return !staff && (folder === SHARED || folder.startsWith(`${SHARED}/`));
}

/** Whether a listed entry offers Delete: not for viewers, read-only entries, or the shared
 * folder itself (the server refuses to delete it). */
export function mayDelete(entry, role) {
  return mayEdit(role) && !entry.read_only && entry.path !== SHARED;
}

const UNITS = ["KB", "MB", "GB", "TB"];

/** 1536 → "1.5 KB"; bytes below 1 KB as "512 B"; null (a folder) → "". */
export function formatSize(bytes) {
  if (typeof bytes !== "number") return "";
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${UNITS[unit]}`;
}

/** The listing of `folder` ("" for the top). */
export const listUrl = (slug, folder) =>
  `${workspaceApi(slug)}/files?folder=${encodeURIComponent(folder)}`;

/** The download of the file at `path`. */
export const downloadUrl = (slug, path) =>
  `${workspaceApi(slug)}/files/content?path=${encodeURIComponent(path)}`;

/** The file or empty folder at `path`, to DELETE. */
export const deleteUrl = (slug, path) =>
  `${workspaceApi(slug)}/files?path=${encodeURIComponent(path)}`;

/** Whether uploading `name` into the listed folder would replace a file: the page asks first. */
export function isTaken(entries, name) {
  return (entries ?? []).some((entry) => entry.kind === "file" && entry.name === name);
}

/** Whether a refused upload was refused because a file has that name (the server's 409,
 * also when another tab uploaded it since the listing): the page asks "Replace?". */
export const isNameTaken = (error) => error.status === 409 && error.code === "file_exists";

/** The upload's form: the file, its folder and whether it may replace a file of its name. */
export function uploadForm(file, folder, replace) {
  const form = new FormData();
  form.append("file", file);
  form.append("folder", folder);
  form.append("replace", replace ? "true" : "false");
  return form;
}

/** What to tell the user when an upload was refused (413: too large, with the server's limit). */
export function uploadProblem(fileName, error) {
  if (error.status === 413) return `${fileName} is too large to upload: ${error.message}.`;
  return `${fileName} was not uploaded: ${error.message}`;
}
