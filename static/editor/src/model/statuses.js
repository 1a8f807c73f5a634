// Node and run statuses and their named sets, as the server's catalog sends them
// (`GET /api/operators` → `statuses`). The constant below is the one fallback, for a server
// that does not send them yet; nothing else in the editor spells a status list.

/** The statuses the runtime knows today (runtime/events.py), with the sets the editor uses. */
export const FALLBACK_STATUSES = Object.freeze({
  node: ["pending", "queued", "running", "retrying", "succeeded", "failed", "skipped", "cancelled", "timed_out", "interrupted"],
  run: ["queued", "running", "succeeded", "failed", "cancelled", "interrupted"],
  sets: {
    FINAL: ["succeeded", "failed", "skipped", "cancelled", "timed_out", "interrupted"],
    FAILURES: ["failed", "timed_out"],
    ACTIVE: ["queued", "running", "retrying"],
  },
});

/**
 * `{node, run, final, failures, active, working}` from the catalog's `statuses` (or the
 * fallback): the sets as Sets; `working` is a node doing work now (active, not waiting).
 */
export function statusSets(statuses) {
  const sets = { ...FALLBACK_STATUSES.sets, ...(statuses?.sets ?? {}) };
  const active = new Set(sets.ACTIVE);
  return {
    node: statuses?.node ?? FALLBACK_STATUSES.node,
    run: statuses?.run ?? FALLBACK_STATUSES.run,
    final: new Set(sets.FINAL),
    failures: new Set(sets.FAILURES),
    active,
    working: new Set([...active].filter((status) => status !== "queued" && status !== "pending")),
  };
}

/** The sets of the fallback, for code that runs before the catalog is loaded and for tests. */
export const DEFAULT_SETS = statusSets(null);
