// Folders and tags on the home page: what the filing form's fields are sent as, and the search
// a click on a tag or a folder runs (the server's words, editor/pipelines/filing.py).

/** The tags typed in one field, separated by commas: trimmed, without empty ones. */
export function tagsFromText(text) {
  return text
    .split(",")
    .map((tag) => tag.trim())
    .filter(Boolean);
}

/** The search that finds the pipelines with `tag` ("tag:kpi"), or in `folder` and below. A
 * value with spaces cannot be one word of the search: then it is searched for anywhere. */
export function searchFor(kind, value) {
  return /\s/.test(value) ? value : `${kind}:${value}`;
}

/** `/api/pipelines` with the search and the order, for the list's first `limit`. */
export function listUrl({ query, sort, limit }) {
  const params = new URLSearchParams({ limit: String(limit), sort });
  if (query.trim()) params.set("q", query.trim());
  return `/api/pipelines?${params}`;
}
