import { describe, expect, it } from "vitest";
import { IDLE_RUN, applyFrame, fromRunDetails, fromSnapshot } from "./runState.js";
import { statusSets } from "../document/statuses.js";
import { axisTicks, timelineLayout, timelineSummary } from "./timeline.js";
import statuses from "../document/statuses.json";

const SETS = statusSets(statuses);
const at = (seconds) => new Date(Date.UTC(2026, 11, 1, 10, 0, 0) + seconds * 1000).toISOString();
const span = (attempt, from, to, status) => ({
  attempt,
  started_at: at(from),
  finished_at: to === null ? null : at(to),
  status,
});

const pastRun = fromRunDetails({
  id: 9,
  number: 4,
  revision: 7,
  status: "failed",
  started_at: at(0),
  finished_at: at(11),
  nodes: {
    write: { status: "cancelled", attempts: 0, attempt_spans: [] },
    read: { status: "succeeded", attempts: 1, attempt_spans: [span(1, 1, 3, "succeeded")] },
    flaky: {
      status: "failed",
      attempts: 2,
      attempt_spans: [span(1, 3, 5, "retrying"), span(2, 6, 8, "failed")],
    },
  },
});

describe("the timeline of a past run", () => {
  const layout = timelineLayout(pastRun, {
    now: Date.parse(at(99)),
    live: false,
    labels: { read: "Read people" },
  });

  it("has one row per node, by first start, those that never ran last", () => {
    expect(layout.rows.map((row) => [row.id, row.label, row.bars.length])).toEqual([
      ["read", "Read people", 1],
      ["flaky", "flaky", 2],
      ["write", "write", 0],
    ]);
  });

  it("places each attempt from its start to its end, from the first start to the run's end", () => {
    expect(layout.durationS).toBe(10);
    const [first, second] = layout.rows[1].bars;
    expect(first).toMatchObject({
      attempt: 1,
      status: "retrying",
      left: 0.2,
      width: 0.2,
      durationS: 2,
      open: false,
    });
    expect(second).toMatchObject({ attempt: 2, status: "failed", left: 0.5, width: 0.2 });
  });

  it("ends an attempt left open by a run that died when the run ended", () => {
    const died = {
      ...pastRun,
      nodes: {
        read: { status: "interrupted", spans: [span(1, 1, 3, "succeeded")] },
        f: { status: "interrupted", spans: [span(1, 3, null, "running")] },
      },
    };
    const [bar] = timelineLayout(died, { now: Date.parse(at(99)), live: false }).rows[1].bars;
    expect(bar).toMatchObject({ left: 0.2, width: 0.8, durationS: 8, open: true });
  });

  it("says what it shows in words", () => {
    expect(timelineSummary(layout, pastRun)).toBe(
      "Timeline of run #4, nodes over 10.0 s: 3 nodes, 3 attempts (1 retried); 1 cancelled, 1 failed, 1 succeeded.",
    );
  });
});

describe("the timeline of a live run", () => {
  const event = (seq, body) => ({
    run_id: 1,
    seq,
    event: { run_id: 1, seq, time: at(seq), ...body },
  });
  const frame = (after_seq, ...events) => ({ type: "events", after_seq, events });
  const live = applyFrame(
    IDLE_RUN,
    frame(
      0,
      event(1, { type: "run_started", nodes: ["read", "f"] }),
      event(2, { type: "node_status", node: "read", status: "running", attempt: 1 }),
      event(4, { type: "node_status", node: "read", status: "retrying", attempt: 1 }),
      event(5, { type: "node_status", node: "read", status: "running", attempt: 2 }),
    ),
    SETS,
  ).state;

  it("records each attempt from the events", () => {
    expect(live.nodes.read.spans).toEqual([span(1, 2, 4, "retrying"), span(2, 5, null, "running")]);
  });

  it("ends the axis and the running attempt at now, so the bar grows", () => {
    const soon = timelineLayout(live, { now: Date.parse(at(7)), live: true });
    const later = timelineLayout(live, { now: Date.parse(at(12)), live: true });
    expect(soon.durationS).toBe(5);
    expect(soon.rows[0].bars[1]).toMatchObject({ durationS: 2, open: true, left: 0.6, width: 0.4 });
    expect(later.rows[0].bars[1]).toMatchObject({ durationS: 7, left: 0.3, width: 0.7 });
    expect(later.rows[1]).toMatchObject({ id: "f", bars: [] });
  });

  it("keeps attempts it saw before a snapshot that has only the latest ones", () => {
    const snapshot = fromSnapshot(live, {
      seq: 9,
      run: {
        id: 1,
        number: 3,
        status: "running",
        started_at: at(1),
        nodes: {
          read: {
            status: "running",
            metrics: {},
            spans: [span(2, 5, 8, "retrying"), span(3, 8, null, "running")],
          },
        },
      },
    });
    expect(snapshot.nodes.read.spans.map((item) => [item.attempt, item.status])).toEqual([
      [1, "retrying"],
      [2, "retrying"],
      [3, "running"],
    ]);
    expect(snapshot.number).toBe(3);
  });
});

describe("the time axis", () => {
  it("ticks at a round step", () => {
    expect(axisTicks(10).map((tick) => tick.label)).toEqual([
      "0 s",
      "2 s",
      "4 s",
      "6 s",
      "8 s",
      "10 s",
    ]);
    expect(axisTicks(0.35).map((tick) => tick.label)).toEqual([
      "0 s",
      "0.05 s",
      "0.1 s",
      "0.15 s",
      "0.2 s",
      "0.25 s",
      "0.3 s",
      "0.35 s",
    ]);
    expect(axisTicks(0)).toEqual([{ at: 0, label: "0 s" }]);
  });
});
