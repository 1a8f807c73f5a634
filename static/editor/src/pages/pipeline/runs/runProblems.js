// The problems a run would be refused for, as the Run button counts and its list shows them:
// the ones the editor already shows (on nodes, and for the whole pipeline), each with its
// node's label, in the canvas' order of nodes. The server refuses a run with any of them
// unless it is asked to run anyway (`allow_problems`: it leaves the nodes with problems, and
// everything below them, out). A database out of reach (`unreachable`) is shown on its node
// but refuses no run: the run connects again, with its retries.

/** The options that run despite the problems (see runOptions.js). */
export const ANYWAY = Object.freeze({ allow_problems: true });

/** `[{node, label, field, message, …}]`: pipeline problems first, then each node's in the order
 * of `nodes` (`[{id, data: {label}}]`); a node's label is its id when it has none. */
export function runProblems(byNode, pipelineProblems, nodes) {
  const listed = (pipelineProblems ?? []).map((problem) => ({ ...problem, label: null }));
  for (const node of nodes ?? []) {
    for (const problem of byNode?.[node.id] ?? []) {
      if (problem.code === "unreachable") continue;
      listed.push({ ...problem, label: node.data?.label || node.id });
    }
  }
  return listed;
}

/** What the Run button says: "Run", or "Run · 1 problem", "Run · 3 problems". */
export function runLabel(count) {
  if (!count) return "Run";
  return `Run · ${count} problem${count === 1 ? "" : "s"}`;
}

/** Where a listed problem is: "Label · Field" (the field's title when the message does not
 * start with it), or the label alone, or "Pipeline". */
export function problemPlace(problem) {
  const field = problem.field_title ? null : problem.field;
  return [problem.label ?? "Pipeline", field].filter(Boolean).join(" · ");
}
