// The Data tab's requests and what it shows of their answers, as pure functions: the query of
// a page or of the statistics, the next sort when a column header is clicked, the ports a
// node's result can be read at, and the words for where the rows came from.

/** `/api/runs/{run}/nodes/{node}/{what}?…` (`what`: "data" or "stats") for `view`:
 * `{port, offset, limit, sort, filter, recompute}`; empty and false values are left out. */
export function resultUrl(runId, node, what, view) {
  const query = new URLSearchParams();
  const fields =
    what === "stats"
      ? ["port", "filter"]
      : ["port", "offset", "limit", "sort", "filter", "recompute"];
  for (const field of fields) {
    const value = view[field];
    if (value !== null && value !== undefined && value !== "" && value !== false)
      query.set(field, String(value));
  }
  const text = query.toString();
  return `/api/runs/${encodeURIComponent(runId)}/nodes/${encodeURIComponent(node)}/${what}${text ? `?${text}` : ""}`;
}

/** The sort after a click on `column`'s header: ascending, then descending, then none. */
export function nextSort(sort, column) {
  if (sort === column) return `-${column}`;
  if (sort === `-${column}`) return null;
  return column;
}

/** How `column` is sorted now: "ascending", "descending" or "none" (for `aria-sort`). */
export function sortState(sort, column) {
  if (sort === column) return "ascending";
  if (sort === `-${column}`) return "descending";
  return "none";
}

/** The ports a node's result can be read at: those the run stored, then the node's outputs
 * (`ports`: its operator's as catalog.portsOf gives them for the node; an output node: what
 * it wrote, its input port). */
export function resultPorts(nodeRun, ports) {
  const stored = Object.keys(nodeRun?.metrics?.results ?? {});
  const declared = (ports?.kind === "output" ? ports.inputs : (ports?.outputs ?? [])).map(
    (port) => port.name,
  );
  return [...new Set([...stored, ...declared])];
}

/** "Rows 51–100 of 1,234" (or "of at least …" when the total is not known). */
export function rowRange(page) {
  if (!page.rows.length) return page.total_rows === 0 ? "No rows" : "No rows on this page";
  const first = page.offset + 1;
  const last = page.offset + page.rows.length;
  const total = page.total_rows === null ? "" : ` of ${page.total_rows.toLocaleString("en-US")}`;
  return `Rows ${first.toLocaleString("en-US")}–${last.toLocaleString("en-US")}${total}`;
}

/** A preview's caption: "adults: first 50 rows of 1,234", or, when it stopped reading early,
 * how many input rows it read to find them. */
export function previewCaption(node, preview) {
  const { rows, total_rows: total, rows_read: read } = preview;
  const shown = `${node}: first ${rows.length} row${rows.length === 1 ? "" : "s"}`;
  if (typeof total === "number") return `${shown} of ${total.toLocaleString("en-US")}`;
  if (typeof read === "number")
    return `${shown} (found in the first ${read.toLocaleString("en-US")} input rows read)`;
  return shown;
}

/** What the answer says of its rows' origin, in words: a stored result and the columns the run
 * did not keep, or a recomputed one and what it was recomputed from. */
export function sourceNote(page) {
  if (page.source === "stored") {
    const stored = page.cached ? "Stored result (reused from an earlier run)" : "Stored result";
    const missing = page.missing_columns ?? [];
    if (!missing.length) return stored;
    const them = missing.length === 1 ? "it" : "them";
    return `${stored}. Not kept by the run: ${inWords(missing)} (nothing after this node reads ${them}).`;
  }
  const from = page.recomputed_from ?? [];
  const origin = from.length
    ? `the stored result${from.length > 1 ? "s" : ""} of ${inWords(from)}`
    : "the run's pipeline";
  const changed = page.changed_inputs?.length
    ? ` Input files changed since the run (${page.changed_inputs.join(", ")}): these rows may differ from what the run saw.`
    : "";
  const keep = page.kept_by?.up_to
    ? ` To keep it whole, run up to ${page.kept_by.up_to} ("Run up to here" in its panel).`
    : "";
  return `Not stored: recomputed from ${origin}, first ${page.recomputed_rows.toLocaleString("en-US")} rows (no sort, filter or statistics).${keep}${changed}`;
}

/** "a", "a and b", "a, b and c". */
function inWords(names) {
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names.join("");
}

/** The bars of a histogram, `{label, count, share}` (share of the largest, 0..1). */
export function histogramBars(stats, format) {
  const bins = stats.histogram ?? [];
  const most = Math.max(1, ...bins.map((bin) => bin.count ?? 0));
  return bins.map((bin) => ({
    label: "value" in bin ? format(bin.value) : `${format(bin.low)} – ${format(bin.high)}`,
    count: bin.count ?? 0,
    share: (bin.count ?? 0) / most,
  }));
}

/** How a node is named in a list of nodes: its label, then its id ("Adults (filter_1)"); the
 * id alone when it has no other label. `labels`: each node's label by id. */
export function nodeChoiceText(id, labels) {
  const label = labels?.[id];
  return label && label !== id ? `${label} (${id})` : id;
}
