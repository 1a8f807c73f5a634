import { describe, expect, it } from "vitest";
import {
  histogramBars,
  nextSort,
  nodeChoiceText,
  previewCaption,
  resultPorts,
  resultUrl,
  rowRange,
  sortState,
  sourceNote,
} from "./resultData.js";

describe("resultUrl", () => {
  it("puts the view's values in the query, leaving out empty ones, and escapes the node", () => {
    expect(
      resultUrl(7, "a b", "data", {
        port: "out",
        offset: 0,
        limit: 50,
        sort: "-age",
        filter: "age > 1 and x = 'é'",
      }),
    ).toBe(
      "/api/runs/7/nodes/a%20b/data?port=out&offset=0&limit=50&sort=-age&filter=age+%3E+1+and+x+%3D+%27%C3%A9%27",
    );
    expect(resultUrl(7, "n", "stats", { port: null, offset: 50, sort: "a", filter: "" })).toBe(
      "/api/runs/7/nodes/n/stats",
    );
    expect(resultUrl(7, "n", "data", { offset: 0, recompute: true })).toBe(
      "/api/runs/7/nodes/n/data?offset=0&recompute=true",
    );
    expect(resultUrl(7, "n", "data", { offset: 0, recompute: false })).toBe(
      "/api/runs/7/nodes/n/data?offset=0",
    );
  });
});

describe("sorting", () => {
  it("goes ascending, descending, then none", () => {
    expect(nextSort(null, "age")).toBe("age");
    expect(nextSort("age", "age")).toBe("-age");
    expect(nextSort("-age", "age")).toBe(null);
    expect(nextSort("-age", "name")).toBe("name");
    expect([sortState("age", "age"), sortState("-age", "age"), sortState("age", "name")]).toEqual([
      "ascending",
      "descending",
      "none",
    ]);
  });
});

describe("resultPorts", () => {
  it("lists stored ports first, then the operator's outputs, or an output node's input", () => {
    const split = {
      kind: "process",
      inputs: [{ name: "in" }],
      outputs: [{ name: "kept" }, { name: "dropped" }],
    };
    expect(resultPorts({ metrics: { results: { dropped: "k" } } }, split)).toEqual([
      "dropped",
      "kept",
    ]);
    expect(
      resultPorts(undefined, { kind: "output", inputs: [{ name: "in" }], outputs: [] }),
    ).toEqual(["in"]);
  });
});

describe("words", () => {
  it("says which rows are shown", () => {
    expect(rowRange({ rows: [[1], [2]], offset: 50, total_rows: 1234 })).toBe(
      "Rows 51–52 of 1,234",
    );
    expect(rowRange({ rows: [], offset: 0, total_rows: 0 })).toBe("No rows");
  });
  it("says how many rows a preview found, and how far it read when it stopped early", () => {
    expect(previewCaption("adults", { rows: [[1], [2]], total_rows: 1234, rows_read: 5000 })).toBe(
      "adults: first 2 rows of 1,234",
    );
    expect(previewCaption("adults", { rows: [[1]], total_rows: null, rows_read: 82149 })).toBe(
      "adults: first 1 row (found in the first 82,149 input rows read)",
    );
    expect(previewCaption("adults", { rows: [], total_rows: null, rows_read: null })).toBe(
      "adults: first 0 rows",
    );
  });
  it("says a recomputed result is not the stored one, and when inputs changed", () => {
    const page = { source: "recomputed", recomputed_rows: 10000, changed_inputs: ["people.csv"] };
    expect(sourceNote(page)).toContain("first 10,000 rows");
    expect(sourceNote(page)).toContain("people.csv");
    expect(sourceNote({ source: "stored", cached: true })).toContain("reused");
  });
  it("says which stored results a recomputed result started from", () => {
    const page = {
      source: "recomputed",
      recomputed_rows: 10000,
      recomputed_from: ["by_country"],
      changed_inputs: [],
    };
    expect(sourceNote(page)).toBe(
      "Not stored: recomputed from the stored result of by_country, first 10,000 rows (no sort, filter or statistics).",
    );
    expect(sourceNote({ ...page, recomputed_from: ["a", "b", "c"] })).toContain(
      "from the stored results of a, b and c,",
    );
    expect(sourceNote({ ...page, recomputed_from: [] })).toContain(
      "recomputed from the run's pipeline,",
    );
    expect(sourceNote({ ...page, kept_by: { up_to: "by_age" } })).toContain(
      'To keep it whole, run up to by_age ("Run up to here" in its panel).',
    );
  });
  it("names the columns a stored result does not hold", () => {
    expect(
      sourceNote({ source: "stored", cached: false, missing_columns: ["name", "email"] }),
    ).toBe(
      "Stored result. Not kept by the run: name and email (nothing after this node reads them).",
    );
    expect(sourceNote({ source: "stored", cached: false, missing_columns: [] })).toBe(
      "Stored result",
    );
  });
  it("scales histogram bars to the largest", () => {
    const bars = histogramBars(
      {
        histogram: [
          { low: 0, high: 5, count: 2 },
          { low: 5, high: 10, count: 4 },
        ],
      },
      String,
    );
    expect(bars).toEqual([
      { label: "0 – 5", count: 2, share: 0.5 },
      { label: "5 – 10", count: 4, share: 1 },
    ]);
  });
});

describe("node choices", () => {
  it("name a node by its label, its id second, and by its id alone when that is all it has", () => {
    const labels = { filter_1: "Adults", csv_input_1: "csv_input_1" };
    expect(nodeChoiceText("filter_1", labels)).toBe("Adults (filter_1)");
    expect(nodeChoiceText("csv_input_1", labels)).toBe("csv_input_1");
    expect(nodeChoiceText("sort_1", labels)).toBe("sort_1");
  });
});
