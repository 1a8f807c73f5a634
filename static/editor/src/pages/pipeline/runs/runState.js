// A run as the canvas shows it, built from the websocket's snapshot and event frames, or from
// a past run's details. Pure: each function returns a new state, and a node whose state did
// not change keeps the same object (so that only its own component re-renders).
//
// state: {runId, number, revision, status, cancelling, seqs: {runId: last seq seen},
//         nodes: {id: NodeRun}, logs: [...], order: [ids], startedAt, finishedAt, durationS,
//         totals, error, parameters, document}; `document` (the pipeline as it ran) only for a
//         past run's details.
// NodeRun: {status, attempt, metrics, rows, share, error, traceback, since, spans}; `rows` (so
// far) and `share` (of the work done, 0..1: a DuckDB segment's estimate) are known while it
// runs, if ever; `spans` are its attempts, `[{attempt, started_at, finished_at, status}]`
// (`finished_at` null while it runs), as editor/attempt_spans.py records them.
// Functions that sort statuses take `sets` (document/statuses.js, from the catalog).

const MAX_LOGS = 2000;

/** Before any run: every node is idle. */
export const IDLE_RUN = Object.freeze({
  runId: null,
  number: null,
  revision: null,
  status: "idle",
  cancelling: false,
  seqs: {},
  nodes: {},
  logs: [],
  order: [],
  startedAt: null,
  finishedAt: null,
  durationS: null,
  totals: null,
  error: "",
  parameters: null,
  document: null,
});

const NO_SPANS = Object.freeze([]);
/** A node's attempts after one `node_status` event: "running" opens one, the status that
 * ends it (retrying or final) closes it (the same rule as editor/attempt_spans.py). */
export function spansWithEvent(spans, event, sets) {
  if (event.status === "running") {
    return [
      ...spans,
      {
        attempt: event.attempt ?? 0,
        started_at: event.time ?? null,
        finished_at: null,
        status: "running",
      },
    ];
  }
  const last = spans[spans.length - 1];
  if (
    (event.status === "retrying" || sets.final.has(event.status)) &&
    last &&
    last.finished_at === null
  ) {
    return [
      ...spans.slice(0, -1),
      { ...last, finished_at: event.time ?? null, status: event.status },
    ];
  }
  return spans;
}

/** A snapshot's latest attempts of a node, after the earlier ones this client saw. */
function mergedSpans(known, latest) {
  if (!latest?.length) return known;
  const first = latest[0].attempt;
  return [...known.filter((span) => span.attempt < first), ...latest];
}

/** The state a websocket snapshot describes (`{seq, run}`; `run` is null before any run). */
export function fromSnapshot(state, { seq, run }) {
  if (!run) return { ...IDLE_RUN, seqs: state.seqs };
  const sameRun = state.runId === run.id;
  const nodes = {};
  for (const [id, node] of Object.entries(run.nodes ?? {})) {
    const previous = sameRun ? state.nodes[id] : undefined;
    const next = {
      status: node.status,
      attempt: previous?.attempt ?? 0,
      metrics: node.metrics ?? {},
      rows: node.metrics?.rows_so_far ?? previous?.rows ?? null,
      share: node.metrics?.share_done ?? previous?.share ?? null,
      iterations: node.metrics?.iterations_done ?? previous?.iterations ?? null,
      error: previous?.error ?? "",
      traceback: previous?.traceback ?? "",
      since: previous?.since ?? null,
      spans: mergedSpans(previous?.spans ?? NO_SPANS, node.spans),
    };
    nodes[id] = previous && sameNodeRun(previous, next) ? previous : next;
  }
  const base = sameRun ? state : IDLE_RUN;
  return {
    ...base,
    runId: run.id,
    number: run.number ?? base.number,
    revision: run.revision ?? base.revision,
    startedAt: base.startedAt ?? run.started_at ?? null,
    status: run.status,
    seqs: { ...state.seqs, [run.id]: seq },
    nodes,
  };
}

function sameNodeRun(a, b) {
  return (
    a.status === b.status &&
    a.rows === b.rows &&
    a.share === b.share &&
    JSON.stringify(a.spans) === JSON.stringify(b.spans) &&
    JSON.stringify(a.metrics) === JSON.stringify(b.metrics)
  );
}

/** A run that was just started (the 202 answer of `POST …/runs`), before its first event. */
export function fromStartedRun(state, run) {
  if (state.runId === run.id) return state;
  const nodes = {};
  for (const [id, node] of Object.entries(run.nodes ?? {})) nodes[id] = blankNode(node.status);
  return {
    ...IDLE_RUN,
    runId: run.id,
    number: run.number ?? null,
    revision: run.revision ?? null,
    status: run.status,
    seqs: state.seqs,
    nodes,
  };
}

/** A past run as it ended (`GET /api/runs/<id>`), with the document that ran and the log
 * lines the server kept for it (`logs`: `[{seq, time, level, node, message}]`). */
export function fromRunDetails(run) {
  const nodes = {};
  for (const [id, node] of Object.entries(run.nodes ?? {})) {
    nodes[id] = {
      status: node.status,
      attempt: node.attempts ?? 0,
      metrics: node.metrics ?? {},
      rows: null,
      share: null,
      error: node.error ?? "",
      traceback: node.traceback ?? "",
      since: null,
      spans: node.attempt_spans ?? NO_SPANS,
    };
  }
  return {
    ...IDLE_RUN,
    runId: run.id,
    number: run.number ?? null,
    revision: run.revision ?? null,
    status: run.status,
    nodes,
    startedAt: run.started_at ?? null,
    finishedAt: run.finished_at ?? null,
    document: run.document ?? null,
    logs: (run.logs ?? []).map(storedLogLine),
    durationS: run.duration_s ?? null,
    error: run.error ?? "",
    parameters: run.parameters ?? null,
    upstreamRuns: run.upstream_runs ?? [],
    tuning: run.tuning ?? true,
    trigger: run.trigger ?? "manual",
    triggeredBy: run.triggered_by ?? "",
    startedFrom: run.started_from ?? null,
  };
}

/** A log line the server stored for a run, as a log entry. */
function storedLogLine(line) {
  return {
    node: line.node || null,
    time: line.time ?? "",
    level: String(line.level ?? "info").toLowerCase(),
    message: line.message ?? "",
  };
}

/** The run with its cancelling asked for: it says so until its nodes have returned. */
export function cancelRequested(state, runId, sets) {
  return state.runId === runId && isActive(state, sets) ? { ...state, cancelling: true } : state;
}

function blankNode(status = "pending") {
  return {
    status,
    attempt: 0,
    metrics: {},
    rows: null,
    share: null,
    error: "",
    traceback: "",
    since: null,
    spans: NO_SPANS,
  };
}

/**
 * Apply one frame `{after_seq, events: [{run_id, seq, event}]}`: events already seen (seq not
 * above the last seen for their run) and events of older runs are dropped. `gap` is true when
 * the frame follows a seq this client never saw: it should ask for a snapshot.
 */
export function applyFrame(state, frame, sets) {
  const events = frame.events ?? [];
  if (!events.length) return { state, gap: false };
  const runId = events[0].run_id;
  if (state.runId !== null && runId < state.runId) return { state, gap: false };
  const gap = (frame.after_seq ?? 0) > (state.seqs[runId] ?? 0);
  let next = state;
  if (next.runId !== runId) {
    next = { ...IDLE_RUN, runId, status: "queued", seqs: state.seqs };
  }
  let lastSeq = next.seqs[runId] ?? 0;
  let nodes = next.nodes;
  let logs = next.logs;
  let run = next;
  for (const { seq, event } of events) {
    if (seq <= lastSeq) continue;
    lastSeq = seq;
    if (event.type === "run_started") {
      if (nodes === next.nodes) nodes = { ...nodes };
      for (const id of event.nodes ?? []) nodes[id] = nodes[id] ?? blankNode();
      run = { ...run, status: "running", order: event.nodes ?? [], startedAt: event.time ?? null };
    } else if (event.type === "run_finished") {
      run = {
        ...run,
        status: event.status,
        durationS: event.duration_s,
        totals: event.totals,
        finishedAt: event.time ?? null,
      };
      logs = [
        ...logs,
        { node: null, time: event.time ?? "", level: "info", message: finishedLine(event) },
      ];
    } else if (event.type === "node_status") {
      if (nodes === next.nodes) nodes = { ...nodes };
      const previous = nodes[event.node] ?? blankNode();
      nodes[event.node] = {
        ...previous,
        status: event.status,
        attempt: event.attempt ?? previous.attempt,
        metrics: event.metrics ?? previous.metrics,
        error: event.error ?? (event.status === "running" ? "" : previous.error),
        traceback: event.traceback ?? (event.status === "running" ? "" : previous.traceback),
        since: event.status === "running" ? (event.time ?? previous.since) : previous.since,
        spans: spansWithEvent(previous.spans ?? NO_SPANS, event, sets),
      };
      if (sets.failures.has(event.status) || event.status === "retrying") {
        const message = event.error ? `${event.status}: ${event.error}` : event.status;
        logs = [...logs, { node: event.node, time: event.time ?? "", level: "error", message }];
      }
    } else if (event.type === "node_progress") {
      if (nodes === next.nodes) nodes = { ...nodes };
      const previous = nodes[event.node] ?? blankNode("running");
      nodes[event.node] = {
        ...previous,
        rows: event.rows ?? previous.rows,
        share: event.share ?? previous.share,
        iterations: event.iterations ?? previous.iterations,
      };
    } else if (event.type === "node_log") {
      logs = [
        ...logs,
        {
          node: event.node ?? null,
          time: event.time ?? "",
          level: event.level,
          message: event.message,
        },
      ];
    }
  }
  if (logs.length > MAX_LOGS) logs = logs.slice(-MAX_LOGS);
  const seqs = lastSeq === (next.seqs[runId] ?? 0) ? next.seqs : { ...next.seqs, [runId]: lastSeq };
  return { state: { ...run, nodes, logs, seqs }, gap };
}

function finishedLine(event) {
  const seconds =
    typeof event.duration_s === "number" ? ` in ${event.duration_s.toFixed(2)} s` : "";
  return `run ${event.status}${seconds}`;
}

/** The status a node shows: its run status, or `idle` when the run does not know it. */
export function nodeStatus(state, id) {
  return statusOf(state.nodes[id]);
}

/** The status of a node's run state (none: "idle"). */
export function statusOf(node) {
  return node?.status ?? "idle";
}

/** The share of its work a running node has done, as "NN %" (rounded down: 100 % only once it
 * is all done), or null when that is not known. */
export function percentDone(node) {
  return typeof node?.share === "number" ? `${Math.floor(node.share * 100)} %` : null;
}

/** `{done, total}` over the run's nodes: how far the run has come. */
export function runProgress(state, sets) {
  const all = Object.values(state.nodes);
  return { done: all.filter((node) => sets.final.has(node.status)).length, total: all.length };
}

/** Whether the run is still queued or running. */
export function isActive(state, sets) {
  return sets.runActive.has(state.status);
}

/** What the run bar says of the run: "Cancelling…" from the cancel until the run has ended. */
export function runPhase(state, sets) {
  if (!isActive(state, sets)) return state.status;
  return state.cancelling ? "cancelling" : state.status;
}
