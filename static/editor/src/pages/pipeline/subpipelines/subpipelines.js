// Sub-pipelines on the canvas, as pure functions: what the palette drags, the ports a node
// draws from its params, the revision choices, the parameter fields from declared defaults,
// and the outer card's run made of its inlined nodes' (ids `<node>__...`, runtime/plan/inline.py).

const DRAG_PREFIX = "subpipeline:";
export const SEPARATOR = "__";
/** The operators the plan inlines: their ports come from their params, their run from their
 * inlined nodes'. */
export const INLINED = new Set(["subpipeline", "for_each"]);

/** The palette's drag text for a usable pipeline (the listing's entry): what the new node
 * is made of, so that adding it needs nothing else. */
export function subpipelineDrag(entry) {
  return `${DRAG_PREFIX}${JSON.stringify({ id: idBase(entry), params: newParams(entry) })}`;
}

/** `{id, params}` of the node a drag text makes, or null when it is not a sub-pipeline's. */
export function chosenSubpipeline(name) {
  if (typeof name !== "string" || !name.startsWith(DRAG_PREFIX)) return null;
  try {
    const chosen = JSON.parse(name.slice(DRAG_PREFIX.length));
    return typeof chosen?.id === "string" && chosen.params ? chosen : null;
  } catch {
    return null;
  }
}

/** The sub-pipeline node (of `subs`, their ids) that node `id` is, or was inlined from; null
 * for any other node. */
export function inlinedOwner(id, subs) {
  if (subs.has(id)) return id;
  const cut = id.indexOf(SEPARATOR);
  return cut > 0 && subs.has(id.slice(0, cut)) ? id.slice(0, cut) : null;
}

/** A new node's params for `entry`: latest revision, default parameters, its ports. */
export function newParams(entry) {
  return {
    pipeline: entry.id,
    revision: "latest",
    parameters: {},
    inputs: entry.inputs.map((port) => port.name),
    outputs: entry.outputs.map((port) => port.name),
  };
}

/** A node id base from the pipeline's name ("Clean orders" → "clean_orders"). */
export function idBase(entry) {
  const base = entry.name
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return /^[a-z_]/.test(base) ? base.slice(0, 40) : `sub_${base}`.slice(0, 40);
}

function port(name) {
  return { name, many: false, required: true, description: "" };
}

/** A sub-pipeline node's ports, from the names its params carry. */
export function subpipelinePorts(entry, params) {
  const names = (list) =>
    Array.isArray(list) ? [...new Set(list.filter((n) => typeof n === "string" && n))] : [];
  return {
    ...entry,
    inputs: names(params?.inputs).map(port),
    outputs: names(params?.outputs).map(port),
  };
}

const SUBPIPELINE_PARAMS = ["pipeline", "revision", "parameters", "inputs", "outputs"];
/** The fields of a loop that only one kind of loop (`over`) uses. */
const LOOP_FIELDS = {
  files: ["pattern", "columns"],
  groups: ["group_by"],
  chunks: ["chunk_rows"],
};

/** The params schema the generic form edits: an operator's own; a loop's without those the
 * sub-pipeline settings edit beside it, and with only the fields of what it loops `over` (its
 * `params`: files by default) beside its key parameter, bound and key column. */
export function formSchema(operator, params) {
  const schema = operator?.params_schema;
  if (operator?.name !== "for_each" || !schema?.properties) return schema;
  const over = LOOP_FIELDS[params?.over] ? params.over : "files";
  const others = Object.entries(LOOP_FIELDS)
    .filter(([kind]) => kind !== over)
    .flatMap(([, fields]) => fields);
  const hidden = [...SUBPIPELINE_PARAMS, ...others];
  const properties = Object.fromEntries(
    Object.entries(schema.properties).filter(([name]) => !hidden.includes(name)),
  );
  const required = (schema.required ?? []).filter((name) => name in properties);
  return { ...schema, properties, required };
}

/** The revision choices: "latest" (with its number) then each kept one, newest first. */
export function revisionOptions(entry) {
  if (!entry) return [{ value: "latest", label: "latest" }];
  return [
    { value: "latest", label: `latest (revision ${entry.revision})` },
    ...entry.revisions.map((number) => ({ value: number, label: `revision ${number}` })),
  ];
}

/** How a parameter is edited, from its default's type: `number`, `integer`, `boolean`,
 * `text` or `json` (lists and objects). */
export function parameterKind(value) {
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (typeof value === "string") return "text";
  return "json";
}

/** The value typed in a parameter's field, as its kind holds it (text stays text when it does
 * not parse: the server then names the field). */
export function parsedParameter(kind, text) {
  if (kind === "text") return text;
  if (kind === "boolean") return text === true || text === "true";
  if (text === "") return undefined;
  if (kind === "integer" || kind === "number") {
    const number = Number(text);
    return Number.isFinite(number) ? number : text;
  }
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const ORDER = [
  "failed",
  "timed_out",
  "cancelled",
  "retrying",
  "running",
  "queued",
  "pending",
  "skipped",
  "succeeded",
];

/**
 * The run of a sub-pipeline node made of its inlined nodes' runs (null when it has none):
 * failed when one failed, running while some have ended and others not, else the most
 * pressing status; `inlined` says how many ended (of a loop: how many iterations) and the
 * most rows one of them gave out, as the card's two lines.
 */
export function aggregateRun(nodes, id, final) {
  const prefix = `${id}${SEPARATOR}`;
  const members = Object.entries(nodes ?? {})
    .filter(([key]) => key.startsWith(prefix))
    .map(([, run]) => run);
  if (!members.length) return null;
  const statuses = members.map((run) => run.status ?? "pending");
  const ended = statuses.filter((status) => final.has(status)).length;
  let status = ORDER.find((name) => statuses.includes(name)) ?? statuses[0];
  if (!["failed", "timed_out", "cancelled"].includes(status) && ended && ended < members.length)
    status = "running";
  const rows = Math.max(0, ...members.map((run) => run.metrics?.rows_out ?? 0));
  const loop = iterationsLine(nodes, prefix, final);
  return {
    status,
    metrics: {},
    error: members.find((run) => run.error)?.error ?? "",
    inlined: {
      nodes: loop ?? `${ended}/${members.length} nodes`,
      rows: `≤ ${rows.toLocaleString("en")} rows`,
      loop: loop !== null,
    },
  };
}

/** A loop's "k/n runs" of its sub-pipeline (an iteration ends when all its nodes have), or
 * null when the node is no loop: its copies are `<id>__<i>__<inner id>`. */
function iterationsLine(nodes, prefix, final) {
  const iterations = new Map();
  for (const [key, run] of Object.entries(nodes)) {
    const found = /^(\d+)__/.exec(key.slice(prefix.length));
    if (!key.startsWith(prefix) || !found) continue;
    const done = final.has(run.status ?? "pending");
    iterations.set(found[1], (iterations.get(found[1]) ?? true) && done);
  }
  if (!iterations.size) return null;
  const ended = [...iterations.values()].filter(Boolean).length;
  return loopRuns(ended, iterations.size);
}

/** "k/n runs" of a loop that runs its own iterations (over groups or chunks): from its
 * progress (`iterations`: [done, total]) while it runs, from its metrics once it succeeded;
 * null for any other node's run. */
export function ownIterations(run) {
  const live = run?.iterations;
  if (Array.isArray(live) && live.length === 2) return loopRuns(live[0], live[1]);
  const total = run?.metrics?.iterations;
  return Number.isInteger(total) ? loopRuns(total, total) : null;
}

/** A loop's iterations ended of all, as its card's run line has room for: "3/3 runs" (what
 * the card's legend, LOOP_LEGEND, spells out). */
function loopRuns(done, total) {
  return `${done}/${total} runs`;
}

export const LOOP_LEGEND = "the sub-pipeline's runs, one per file, group or chunk: ended / all";

/** A sub-pipeline node's mark in the plan view, from its inlined nodes' marks (`byNode`):
 * theirs when they share one, "mixed" otherwise; its title lists what it became. */
export function subpipelineMark(byNode, entry) {
  const marks = entry.nodes.map((id) => byNode[id]).filter(Boolean);
  const revision = entry.revision == null ? "" : ` @ revision ${entry.revision}`;
  const title = `'${entry.pipeline}'${revision} inlined as ${entry.nodes.join(", ") || "nothing"}`;
  const first = marks[0];
  if (first && marks.every((mark) => mark.label === first.label))
    return { ...first, title: `${title}: ${first.title}` };
  const each = entry.nodes.map((id) => `${id} ${byNode[id]?.label ?? "?"}`).join(", ");
  return { kind: "segment", label: "mixed", title: `${title}: ${each}` };
}
