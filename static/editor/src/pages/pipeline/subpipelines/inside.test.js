import { describe, expect, it } from "vitest";
import { shownRun } from "../overlay.js";
import { IDLE_RUN } from "../runs/runState.js";
import {
  innerRun,
  innerRunOnce,
  insidePath,
  insideTitle,
  iterationOptions,
  iterationPath,
} from "./inside.js";
import { aggregateRun } from "./subpipelines.js";

const FINAL = new Set(["succeeded", "failed", "skipped", "cancelled", "timed_out"]);
const ok = (rows) => ({ status: "succeeded", metrics: { rows_out: rows } });

const RUN = {
  ...IDLE_RUN,
  runId: 9,
  number: 4,
  status: "running",
  nodes: {
    read: ok(3),
    sub__keep: ok(2),
    sub__deep__trim: { status: "running", metrics: {} },
    sub__deep__count: { status: "pending", metrics: {} },
    subway: ok(1), // another node whose id merely begins the same
    each__0__read: ok(2),
    each__1__read: { status: "failed", metrics: {}, error: "no file" },
    write: { status: "pending", metrics: {} },
  },
  order: ["read", "sub__keep", "sub__deep__trim", "sub__deep__count", "write"],
  logs: [
    { node: null, level: "info", message: "run started" },
    { node: "sub__keep", level: "error", message: "retrying" },
    { node: "write", level: "info", message: "outer" },
  ],
};

describe("the run inside a sub-pipeline node", () => {
  it("keeps the node runs under the prefix, by their inner ids", () => {
    const inner = innerRun(RUN, "sub__");
    expect(inner.nodes).toEqual({
      keep: ok(2),
      deep__trim: RUN.nodes.sub__deep__trim,
      deep__count: RUN.nodes.sub__deep__count,
    });
    expect(inner.nodes.keep).toBe(RUN.nodes.sub__keep); // the same object: cards skip a render
    expect(inner.order).toEqual(["keep", "deep__trim", "deep__count"]);
    expect(inner.prefix).toBe("sub__");
    expect([inner.runId, inner.number, inner.status]).toEqual([9, 4, "running"]);
  });

  it("keeps the run's own log lines and the inner nodes', renamed", () => {
    expect(innerRun(RUN, "sub__").logs.map((line) => [line.node, line.message])).toEqual([
      [null, "run started"],
      ["keep", "retrying"],
    ]);
  });

  it("maps a nested sub-pipeline through both prefixes, and its card aggregates it", () => {
    const middle = innerRun(RUN, "sub__");
    expect(aggregateRun(middle.nodes, "deep", FINAL).inlined.nodes).toBe("0/2 nodes");
    const nested = innerRun(RUN, insidePath("sub__", "deep") + "__");
    expect(Object.keys(nested.nodes)).toEqual(["trim", "count"]);
  });

  it("shows one iteration of a loop at a time", () => {
    const path = iterationPath({ node: "each" }, 1);
    expect(path).toBe("each__1");
    expect(innerRun(RUN, `${path}__`).nodes).toEqual({ read: RUN.nodes.each__1__read });
  });

  it("names each iteration in the picker by its file, by number where the file is unknown", () => {
    const loop = { node: "each", iteration: 0, iterations: 3 };
    const labels = ["teams/blue.csv", null, "red.csv"];
    expect(iterationOptions({ ...loop, labels }).map((option) => option.text)).toEqual([
      "1 of 3 · blue.csv",
      "2 of 3",
      "3 of 3 · red.csv",
    ]);
    expect(iterationOptions({ ...loop, labels })[0].title).toBe("teams/blue.csv");
    expect(iterationOptions(loop).map((option) => option.text)).toEqual([
      "1 of 3",
      "2 of 3",
      "3 of 3",
    ]);
  });

  it("gives the canvas the same inner run while the outer one is the same object", () => {
    const state = { live: RUN, viewed: null, inside: { prefix: "sub__" } };
    expect(shownRun(state)).toBe(shownRun({ ...state }));
    expect(innerRunOnce(RUN, "each__0__")).not.toBe(shownRun(state));
    const later = { ...RUN, nodes: { ...RUN.nodes, sub__keep: ok(5) } };
    expect(shownRun({ ...state, live: later }).nodes.keep.metrics.rows_out).toBe(5);
    expect(shownRun({ ...state, inside: null })).toBe(RUN);
  });

  it("names the run, the outer pipeline and the nodes walked through", () => {
    const inside = {
      run: { number: 4 },
      pipeline: { name: "Orders" },
      labels: ["Clean", "Dedupe"],
    };
    expect(insideTitle(inside)).toBe("Run #4 of Orders, node Clean › Dedupe");
    expect(insideTitle(inside, 5)).toBe("Run #5 of Orders, node Clean › Dedupe");
  });
});
