// Node and run statuses and their named sets, as the server's catalog sends them
// (`GET /api/operators` → `statuses`, from runtime/statuses.py); nothing in the editor spells
// a status list of its own.

/**
 * `{node, run, final, failures, active, working, runActive}` from the catalog's `statuses`:
 * the node sets as Sets, `working` a node doing work now (active, not waiting), `runActive` a
 * run still queued or running.
 */
export function statusSets(statuses) {
  const { node, run } = statuses.sets;
  const active = new Set(node.ACTIVE);
  return {
    node: statuses.node,
    run: statuses.run,
    final: new Set(node.FINAL),
    failures: new Set(node.FAILURES),
    active,
    runActive: new Set(run.ACTIVE),
    working: new Set([...active].filter((status) => status !== "queued" && status !== "pending")),
  };
}
