// Node and run statuses and their named sets, as the server's catalog sends them
// (`GET /api/operators` → `statuses`). The constant below is the one fallback, for a server
// that does not send them yet; nothing else in the editor spells a status list.

/** The statuses the runtime knows today (runtime/events.py), with the sets the editor uses. */
export const FALLBACK_STATUSES = Object.freeze({
  node: ["pending", "queued", "running", "retrying", "succeeded", "failed", "skipped", "cancelled", "timed_out", "interrupted"],
  run: ["queued", "running", "succeeded", "failed", "cancelled", "interrupted"],
  sets: {
    node: {
      FINAL: ["succeeded", "failed", "skipped", "cancelled", "timed_out", "interrupted"],
      FAILURES: ["failed", "timed_out"],
      ACTIVE: ["queued", "running", "retrying"],
    },
    run: {
      ACTIVE: ["queued", "running"],
      FINAL: ["succeeded", "failed", "cancelled", "interrupted"],
    },
  },
});

/**
 * `{node, run, final, failures, active, working, runActive}` from the catalog's `statuses`
 * (or the fallback): the node sets as Sets, `working` a node doing work now (active, not
 * waiting), `runActive` a run still queued or running.
 */
export function statusSets(statuses) {
  const node = { ...FALLBACK_STATUSES.sets.node, ...(statuses?.sets?.node ?? {}) };
  const run = { ...FALLBACK_STATUSES.sets.run, ...(statuses?.sets?.run ?? {}) };
  const active = new Set(node.ACTIVE);
  return {
    node: statuses?.node ?? FALLBACK_STATUSES.node,
    run: statuses?.run ?? FALLBACK_STATUSES.run,
    final: new Set(node.FINAL),
    failures: new Set(node.FAILURES),
    active,
    runActive: new Set(run.ACTIVE),
    working: new Set([...active].filter((status) => status !== "queued" && status !== "pending")),
  };
}

/** The sets of the fallback, for code that runs before the catalog is loaded and for tests. */
export const DEFAULT_SETS = statusSets(null);
