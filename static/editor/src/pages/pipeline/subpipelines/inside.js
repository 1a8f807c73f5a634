// The run inside a sub-pipeline node, as pure functions: an outer run's node runs under the
// node's prefix (`<node>__<inner id>`, nested `a__b__c`, a loop's `F__<i>__<inner id>`;
// runtime/plan/inline.py) become the inner pipeline's own, so that its canvas shows them as
// it shows any run. `GET /api/runs/<id>/inside/<path>` gives the inner pipeline and the prefix.

import { SEPARATOR } from "./subpipelines.js";

/** The run (runs/runState.js) as the inner pipeline's nodes ran in it: only the nodes (and
 * their log lines) under `prefix`, by their inner ids; the run's own lines stay. `prefix` is
 * kept on it, for what asks the server about a node (its id in the run is prefix + id). */
export function innerRun(run, prefix) {
  const nodes = {};
  for (const [id, node] of Object.entries(run.nodes)) {
    if (id.startsWith(prefix)) nodes[id.slice(prefix.length)] = node;
  }
  const order = run.order
    .filter((id) => id.startsWith(prefix))
    .map((id) => id.slice(prefix.length));
  const logs = run.logs
    .filter((line) => !line.node || line.node.startsWith(prefix))
    .map((line) => (line.node ? { ...line, node: line.node.slice(prefix.length) } : line));
  return { ...run, nodes, order, logs, prefix };
}

const seen = new WeakMap();

/** `innerRun`, the same object while the run and prefix are (the canvas' selectors compare
 * what they read by identity). */
export function innerRunOnce(run, prefix) {
  const known = seen.get(run);
  if (known?.prefix === prefix) return known;
  const made = innerRun(run, prefix);
  seen.set(run, made);
  return made;
}

/** The path (for `…/inside/<path>`) of sub-pipeline node `id` on a canvas whose run ids start
 * with `prefix` ("" on the outer pipeline's). */
export function insidePath(prefix, id) {
  return `${prefix}${id}`;
}

/** The path of iteration `index` of the loop `loop` (`{node}`, the answer's). */
export function iterationPath(loop, index) {
  return `${loop.node}${SEPARATOR}${index}`;
}

/** The loop's iterations as its picker lists them (`loop`: the answer's): each `{index, text,
 * title}`, the text "2 of 3 · red.csv" (a file by its name, its path as the title) or "2 of
 * 3" when the run's file is not known. */
export function iterationOptions(loop) {
  const count = Math.max(loop.iterations, loop.iteration + 1);
  return Array.from({ length: count }, (_, index) => {
    const label = loop.labels?.[index] ?? null;
    const name = label?.split("/").pop();
    const text = `${index + 1} of ${loop.iterations}`;
    return { index, text: name ? `${text} · ${name}` : text, title: label ?? undefined };
  });
}

/** What the banner calls the view: "Run #4 of Orders, node Clean › Dedupe". */
export function insideTitle(inside, number) {
  return `Run #${number ?? inside.run.number} of ${inside.pipeline.name}, node ${inside.labels.join(" › ")}`;
}
