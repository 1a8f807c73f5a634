import { describe, expect, it } from "vitest";
import { PLAN_TONES, planClasses, planMarks, planQuery, reuseRows } from "./plan.js";

const plan = (fields) => ({
  segments: [],
  pandas: [],
  eliminated: {},
  merged: {},
  notes: [],
  text: "",
  ...fields,
});

describe("the plan view's marks", () => {
  it("put every node on pandas while the plan has no segment", () => {
    const { byNode, legend } = planMarks(plan({ pandas: ["read", "write"] }));
    expect(byNode.read).toMatchObject({ kind: "pandas", label: "pandas" });
    expect(legend).toEqual([
      { kind: "pandas", label: "pandas, node by node", count: 2, title: "pandas, node by node" },
    ]);
  });

  it("give each segment's nodes its backend and a tone of their own, in turn", () => {
    const segments = Array.from({ length: PLAN_TONES + 1 }, (_, index) => ({
      id: `segment:${index + 1}`,
      backend: "duckdb",
      nodes: [`n${index}`],
      reason: "every node lowers",
    }));
    const { byNode, legend } = planMarks(plan({ segments }));
    expect(byNode.n0).toMatchObject({
      kind: "segment",
      backend: "duckdb",
      segment: "segment:1",
      tone: 0,
      label: "duckdb",
    });
    expect(byNode.n0.title).toBe("segment:1 on duckdb: every node lowers");
    expect(byNode.n1.tone).toBe(1);
    expect(byNode[`n${PLAN_TONES}`].tone).toBe(0);
    expect(legend[0]).toMatchObject({ label: "segment:1 · duckdb", count: 1 });
  });

  it("mark eliminated and merged nodes with their reason, over any backend", () => {
    const marks = planMarks(
      plan({
        pandas: ["dead", "twin", "kept"],
        eliminated: { dead: "reaches no output" },
        merged: { twin: "kept" },
      }),
    );
    expect(marks.byNode.dead).toMatchObject({
      kind: "eliminated",
      title: "not run: reaches no output",
    });
    expect(marks.byNode.twin).toMatchObject({ kind: "merged", title: "computed once with kept" });
    expect(marks.legend.map((entry) => [entry.kind, entry.count])).toEqual([
      ["pandas", 1],
      ["eliminated", 1],
      ["merged", 1],
    ]);
  });

  it("say why a node runs on pandas when the backend would have lowered it", () => {
    const why = "column 'tags' of 'orders.parquet' is map<string, int64>, kept as pandas keeps it";
    const { byNode } = planMarks(plan({ pandas: ["orders", "excel"], fallbacks: { orders: why } }));
    expect(byNode.orders).toMatchObject({
      kind: "pandas",
      title: `runs on pandas, not DuckDB: ${why}`,
    });
    expect(byNode.excel.title).toBe("runs on pandas, node by node");
  });

  it("become card classes only inside the plan view", () => {
    expect(planClasses(undefined)).toBe("");
    expect(planClasses({ kind: "segment", tone: 2 })).toBe(" pw-plan-segment pw-plan-tone-2");
    expect(planClasses({ kind: "eliminated" })).toBe(" pw-plan-eliminated");
  });

  it("ask for the document's own backend unless one is chosen", () => {
    expect(planQuery("")).toBe("");
    expect(planQuery("duckdb")).toBe("?backend=duckdb");
  });
});

describe("reuseRows", () => {
  const plan = {
    reuse: {
      read: "reused from the cache: the results below it are stored",
      keep: "reused from the cache",
      write: "its params changed: path",
    },
    reused_from: { keep: 3 },
    eliminated: { loose: "nothing reads it" },
  };

  it("says per node whether it will run or is reused from which run, with the reason", () => {
    expect(reuseRows(plan, { keep: "Adults" })).toEqual([
      {
        id: "read",
        label: "read",
        verdict: "reused",
        reason: "the results below it are stored",
      },
      {
        id: "keep",
        label: "Adults",
        verdict: "reused from run #3",
        reason: "its inputs and settings did not change",
      },
      { id: "write", label: "write", verdict: "will run", reason: "its params changed: path" },
      { id: "loose", label: "loose", verdict: "not run", reason: "nothing reads it" },
    ]);
  });

  it("lists nothing when the plan has no result store", () => {
    expect(reuseRows({ eliminated: { loose: "x" } })).toEqual([]);
  });
});
