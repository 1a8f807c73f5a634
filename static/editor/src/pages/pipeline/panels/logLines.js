// What the Logs tab says when it has no line to show: before any run, during one, or after a
// run that wrote none (a successful run may well write none).

/** The empty Logs tab's sentence for `run` (the run shown), `node` the node filter ("" all). */
export function noLogsText(run, node) {
  if (!run?.runId) return "No log lines yet. Run the pipeline to see what each node does.";
  const which = node ? "this node" : "this run";
  if (run.status === "queued" || run.status === "running") {
    return `No log lines from ${which} yet.`;
  }
  return node
    ? `This node wrote no log lines in run #${run.number}.`
    : "This run wrote no log lines.";
}
