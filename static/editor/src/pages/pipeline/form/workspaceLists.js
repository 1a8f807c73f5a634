// The workspace's file paths and connections as the params form offers them: fetched once per
// workspace and page, shared by every field, fetched again after an upload or a new connection.

import { useEffect, useState } from "react";
import { workspaceApi } from "../../workspace/roles.js";

const loaded = new Map(); // "files:<slug>" | "connections:<slug>" → Promise
const listeners = new Set();

function load(api, key, url, pick) {
  if (!loaded.has(key)) {
    loaded.set(
      key,
      api.get(url).then(pick, () => {
        loaded.delete(key); // tried again by the next field that asks
        return null;
      }),
    );
  }
  return loaded.get(key);
}

/** Forget what was fetched for `slug` (after an upload or a new connection): fields refetch. */
export function refreshWorkspaceLists(slug) {
  for (const key of [...loaded.keys()]) if (key.endsWith(`:${slug}`)) loaded.delete(key);
  for (const listener of listeners) listener();
}

function useLoaded(access, kind, path, pick) {
  const [value, setValue] = useState(null);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const listener = () => setGeneration((count) => count + 1);
    listeners.add(listener);
    return () => listeners.delete(listener);
  }, []);
  const slug = access?.workspace?.slug;
  useEffect(() => {
    if (!slug) return undefined;
    let live = true;
    load(access.api, `${kind}:${slug}`, `${workspaceApi(slug)}${path}`, pick).then((found) => {
      if (live) setValue(found);
    });
    return () => {
      live = false;
    };
  }, [access, slug, kind, path, pick, generation]);
  return value;
}

const pickPaths = (answer) => answer.items;
const pickConnections = (answer) => answer.items;

/** Every file's path in the workspace and `shared/` (null while loading or without one). */
export const useFilePaths = (access) => useLoaded(access, "files", "/files/paths", pickPaths);

/** The workspace's connections `[{name, url, read_only, …}]` (null while loading). */
export const useConnections = (access) =>
  useLoaded(access, "connections", "/connections", pickConnections);

/** The paths matching typed `text` (every word, any case), at most `limit`, best first:
 * those whose file name starts with it, then the rest in order. */
export function matchingPaths(paths, text, limit = 100) {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  const found = (paths ?? []).filter((path) => {
    const lower = path.toLowerCase();
    return words.every((word) => lower.includes(word));
  });
  const first = words[0] ?? "";
  const starts = (path) => path.toLowerCase().split("/").pop().startsWith(first);
  return [...found.filter(starts), ...found.filter((path) => !starts(path))].slice(0, limit);
}

/** The folder holding `path` ("" at the top). */
export const folderOf = (path) => (path ?? "").split("/").slice(0, -1).join("/");

/** The file name at the end of `path`. */
export const nameOf = (path) => (path ?? "").split("/").pop();

/** The path of a file `name` (which may name sub-folders) in `folder` ("" at the top). */
export const pathIn = (folder, name) =>
  [folder, name.trim().replace(/^\/+/, "")].filter(Boolean).join("/");
