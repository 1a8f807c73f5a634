import { describe, expect, it } from "vitest";
import {
  IDLE_RUN,
  applyFrame,
  cancelRequested,
  fromRunDetails,
  fromSnapshot,
  fromStartedRun,
  nodeStatus,
  percentDone,
  runPhase,
  runProgress,
} from "./runState.js";
import { statusSets } from "../document/statuses.js";
import statuses from "../document/statuses.json";

// The catalog's statuses as the server sends them (tests/editor/test_frontend.py keeps this
// file equal to runtime/statuses.py's).
const SETS = statusSets(statuses);

const event = (run_id, seq, body) => ({
  run_id,
  seq,
  event: { run_id, seq, time: `2026-11-30T00:00:${String(seq).padStart(2, "0")}+00:00`, ...body },
});
const frame = (after_seq, ...events) => ({ type: "events", after_seq, events });

describe("snapshots", () => {
  it("shows every node idle before any run", () => {
    const state = fromSnapshot(IDLE_RUN, { seq: 0, run: null });
    expect(nodeStatus(state, "read")).toBe("idle");
  });

  it("takes a run's statuses and remembers its seq", () => {
    const state = fromSnapshot(IDLE_RUN, {
      seq: 12,
      run: {
        id: 4,
        status: "running",
        nodes: {
          read: { status: "succeeded", metrics: { rows_out: 3 } },
          f: { status: "running", metrics: { rows_so_far: 2 } },
        },
      },
    });
    expect(state.runId).toBe(4);
    expect(state.seqs[4]).toBe(12);
    expect(nodeStatus(state, "read")).toBe("succeeded");
    expect(state.nodes.f.rows).toBe(2);
  });
});

describe("event frames", () => {
  const started = applyFrame(
    IDLE_RUN,
    frame(0, event(1, 1, { type: "run_started", nodes: ["read", "f"] })),
    SETS,
  ).state;

  it("applies a frame's events in one new state", () => {
    const { state, gap } = applyFrame(
      started,
      frame(
        1,
        event(1, 2, { type: "node_status", node: "read", status: "running", attempt: 1 }),
        event(1, 3, { type: "node_progress", node: "read", rows: 500 }),
      ),
      SETS,
    );
    expect(gap).toBe(false);
    expect(state.nodes.read).toMatchObject({
      status: "running",
      rows: 500,
      since: "2026-11-30T00:00:02+00:00",
    });
    expect(state.seqs[1]).toBe(3);
    expect(state.status).toBe("running");
  });

  it("ignores events whose seq is not above the last seen for the run", () => {
    const first = applyFrame(
      started,
      frame(
        1,
        event(1, 2, {
          type: "node_status",
          node: "read",
          status: "succeeded",
          metrics: { rows_out: 3 },
        }),
      ),
      SETS,
    ).state;
    const again = applyFrame(
      first,
      frame(1, event(1, 2, { type: "node_status", node: "read", status: "running" })),
      SETS,
    );
    expect(again.state.nodes.read.status).toBe("succeeded");
    expect(again.gap).toBe(false);
  });

  it("applies only the unseen part of a frame that overlaps a snapshot", () => {
    const snapshot = fromSnapshot(started, {
      seq: 5,
      run: {
        id: 1,
        status: "running",
        nodes: {
          read: { status: "succeeded", metrics: {} },
          f: { status: "running", metrics: {} },
        },
      },
    });
    const { state } = applyFrame(
      snapshot,
      frame(
        3,
        event(1, 4, { type: "node_status", node: "read", status: "running" }),
        event(1, 6, {
          type: "node_status",
          node: "f",
          status: "failed",
          error: "boom",
          traceback: "Traceback…",
        }),
      ),
      SETS,
    );
    expect(state.nodes.read.status).toBe("succeeded");
    expect(state.nodes.f).toMatchObject({
      status: "failed",
      error: "boom",
      traceback: "Traceback…",
    });
  });

  it("reports a gap when a frame follows a seq it never saw", () => {
    const { state, gap } = applyFrame(
      started,
      frame(7, event(1, 8, { type: "node_status", node: "f", status: "running" })),
      SETS,
    );
    expect(gap).toBe(true);
    expect(state.nodes.f.status).toBe("running");
  });

  it("keeps a node's rows and share done from progress events that carry one of them", () => {
    const { state } = applyFrame(
      started,
      frame(
        1,
        event(1, 2, { type: "node_progress", node: "read", rows: 40 }),
        event(1, 3, { type: "node_progress", node: "read", share: 0.426 }),
      ),
      SETS,
    );
    expect(state.nodes.read).toMatchObject({ rows: 40, share: 0.426 });
    expect(percentDone(state.nodes.read)).toBe("42 %");
    expect(percentDone(started.nodes.f)).toBe(null);
  });

  it("takes the share done of a running node from a snapshot", () => {
    const state = fromSnapshot(started, {
      seq: 4,
      run: {
        id: 1,
        status: "running",
        nodes: { f: { status: "running", metrics: { share_done: 0.999 } } },
      },
    });
    expect(state.nodes.f.share).toBe(0.999);
    expect(percentDone(state.nodes.f)).toBe("99 %");
  });

  it("keeps unchanged nodes as the same objects", () => {
    const { state } = applyFrame(
      started,
      frame(1, event(1, 2, { type: "node_progress", node: "read", rows: 1 })),
      SETS,
    );
    expect(state.nodes.f).toBe(started.nodes.f);
  });

  it("switches to a newer run and drops events of older ones", () => {
    const newer = applyFrame(
      started,
      frame(0, event(2, 1, { type: "run_started", nodes: ["read"] })),
      SETS,
    ).state;
    expect(newer.runId).toBe(2);
    expect(nodeStatus(newer, "f")).toBe("idle");
    const old = applyFrame(
      newer,
      frame(1, event(1, 2, { type: "node_status", node: "read", status: "failed" })),
      SETS,
    );
    expect(old.state).toBe(newer);
  });

  it("finishes the run and collects log lines", () => {
    const { state } = applyFrame(
      started,
      frame(
        1,
        event(1, 2, { type: "node_log", node: "read", level: "info", message: "read 3 rows" }),
        event(1, 3, {
          type: "run_finished",
          status: "succeeded",
          duration_s: 0.5,
          totals: { nodes: { succeeded: 2 } },
        }),
      ),
      SETS,
    );
    expect(state.status).toBe("succeeded");
    expect(state.durationS).toBe(0.5);
    expect(state.logs.map((line) => line.message)).toEqual([
      "read 3 rows",
      "run succeeded in 0.50 s",
    ]);
  });

  it("ignores an empty frame", () => {
    expect(applyFrame(started, frame(1), SETS).state).toBe(started);
  });
});

describe("runs from the API", () => {
  it("starts a run from the 202 answer", () => {
    const state = fromStartedRun(IDLE_RUN, {
      id: 9,
      status: "queued",
      nodes: { read: { status: "pending" } },
    });
    expect(state).toMatchObject({ runId: 9, status: "queued" });
    expect(nodeStatus(state, "read")).toBe("pending");
  });

  it("shows a past run as it ended, with its errors", () => {
    const state = fromRunDetails({
      id: 3,
      status: "failed",
      duration_s: 1.5,
      nodes: {
        read: {
          status: "succeeded",
          attempts: 1,
          metrics: { rows_out: 3 },
          error: "",
          traceback: "",
        },
        f: {
          status: "failed",
          attempts: 2,
          metrics: {},
          error: "no column x",
          traceback: "Traceback",
        },
      },
      logs: [],
    });
    expect(nodeStatus(state, "f")).toBe("failed");
    expect(state.nodes.f.error).toBe("no column x");
    expect(state.durationS).toBe(1.5);
    expect(runProgress(state, SETS)).toEqual({ done: 2, total: 2 });
  });

  it("shows the log lines and parameters the server kept for a past run", () => {
    const state = fromRunDetails({
      id: 5,
      status: "failed",
      parameters: { min_age: 18 },
      nodes: { f: { status: "failed", attempts: 2, metrics: {}, error: "boom" } },
      logs: [
        { seq: 1, level: "INFO", node: null, message: "run started", time: "2026-11-30T00:00:01" },
        { seq: 2, level: "warning", node: "f", message: "retrying: boom" },
      ],
    });
    expect(state.parameters).toEqual({ min_age: 18 });
    expect(state.logs).toEqual([
      { node: null, time: "2026-11-30T00:00:01", level: "info", message: "run started" },
      { node: "f", time: "", level: "warning", message: "retrying: boom" },
    ]);
  });
});

describe("cancelling", () => {
  const running = applyFrame(
    IDLE_RUN,
    frame(
      0,
      event(1, 1, { type: "run_started", nodes: ["slow", "out"] }),
      event(1, 2, { type: "node_status", node: "slow", status: "running" }),
    ),
    SETS,
  ).state;

  it("says Cancelling until every running node has returned, then the run's end", () => {
    const asked = cancelRequested(running, 1, SETS);
    expect(runPhase(asked, SETS)).toBe("cancelling");
    const stillRunning = applyFrame(
      asked,
      frame(2, event(1, 3, { type: "node_status", node: "out", status: "cancelled" })),
      SETS,
    ).state;
    expect(runPhase(stillRunning, SETS)).toBe("cancelling");
    const ended = applyFrame(
      stillRunning,
      frame(
        3,
        event(1, 4, { type: "node_status", node: "slow", status: "cancelled" }),
        event(1, 5, { type: "run_finished", status: "cancelled", duration_s: 2 }),
      ),
      SETS,
    ).state;
    expect(runPhase(ended, SETS)).toBe("cancelled");
  });

  it("leaves a finished run or another run as it is", () => {
    expect(cancelRequested(running, 2, SETS)).toBe(running);
    const ended = applyFrame(
      running,
      frame(2, event(1, 3, { type: "run_finished", status: "succeeded" })),
      SETS,
    ).state;
    expect(cancelRequested(ended, 1, SETS)).toBe(ended);
  });

  it("keeps saying so across a snapshot of the same run", () => {
    const asked = cancelRequested(running, 1, SETS);
    expect(
      runPhase(fromSnapshot(asked, { seq: 2, run: { id: 1, status: "running", nodes: {} } }), SETS),
    ).toBe("cancelling");
  });
});

describe("status sets", () => {
  it("come from the catalog, with no list of the editor's own", () => {
    const sets = statusSets({
      node: ["a"],
      run: ["r"],
      sets: {
        node: { FINAL: ["done"], ACTIVE: ["going"], FAILURES: ["broke"] },
        run: { ACTIVE: ["going"] },
      },
    });
    expect(
      runProgress({ nodes: { x: { status: "done" }, y: { status: "succeeded" } } }, sets),
    ).toEqual({ done: 1, total: 2 });
    expect(runPhase({ status: "going" }, sets)).toBe("going");
    expect([...sets.working]).toEqual(["going"]);
  });

  it("count a queued node as active but not working", () => {
    expect(SETS.active.has("queued")).toBe(true);
    expect(SETS.working.has("queued")).toBe(false);
    expect(SETS.working.has("running")).toBe(true);
  });
});
