import { describe, expect, it } from "vitest";
import {
  cellText,
  columnChangeLines,
  compareUrl,
  countChange,
  defaultPair,
  direction,
  durationChange,
  keyCandidates,
  nodeMark,
  rowCountsLine,
} from "./runComparison.js";

const runs = [{ id: 9 }, { id: 7 }, { id: 4 }];

describe("defaultPair", () => {
  it("compares the latest run with the one before it", () => {
    expect(defaultPair(runs, null)).toEqual({ a: 7, b: 9 });
  });
  it("compares the run viewed with the one before it", () => {
    expect(defaultPair(runs, 7)).toEqual({ a: 4, b: 7 });
  });
  it("compares the oldest run with itself, and nothing when there is no run", () => {
    expect(defaultPair(runs, 4)).toEqual({ a: 4, b: 4 });
    expect(defaultPair([], null)).toBeNull();
  });
});

describe("compareUrl", () => {
  it("encodes keys with any character but a comma", () => {
    expect(compareUrl(1, 2, ["id", 'we"ird & é'], "write")).toBe(
      "/api/runs/compare?a=1&b=2&keys=id%2Cwe%22ird+%26+%C3%A9&node=write",
    );
  });
  it("leaves out keys and node when there are none", () => {
    expect(compareUrl(1, 2)).toBe("/api/runs/compare?a=1&b=2");
  });
});

describe("figures with their change", () => {
  it("shows the change with its sign", () => {
    expect(countChange(3, 2)).toBe("3 → 2 (\u22121)");
    expect(countChange(1000, 2500)).toBe("1,000 → 2,500 (+1,500)");
    expect(durationChange(0.12, 0.08)).toBe("120 ms → 80 ms (\u221240 ms)");
  });
  it("shows one figure when unchanged, and a dash when neither run knows it", () => {
    expect(countChange(3, 3)).toBe("3");
    expect(countChange(null, undefined)).toBe("–");
  });
  it("shows a figure only one run has without a difference", () => {
    expect(countChange(null, 4)).toBe("– → 4");
  });
  it("says which way a figure went", () => {
    expect([direction(1, 2), direction(2, 1), direction(2, 2), direction(null, 2)]).toEqual([
      "up",
      "down",
      "",
      "",
    ]);
  });
});

describe("columnChangeLines", () => {
  it("lists added, removed and retyped columns", () => {
    const changes = {
      added: [{ name: "band", type: "string" }],
      removed: [{ name: "name", type: "string" }],
      changed: [{ name: "age", from: "integer", to: "float" }],
    };
    expect(columnChangeLines(changes)).toEqual([
      "+band (string)",
      "\u2212name (string)",
      "age: integer → float",
    ]);
    expect(columnChangeLines(null)).toEqual([]);
  });
});

const figures = { status: "succeeded", rows_in: 3, rows_out: 2 };
const entry = (extra) => ({
  presence: "both",
  changes: [],
  a: figures,
  b: figures,
  results: [],
  ...extra,
});

describe("nodeMark", () => {
  it("marks nodes only one run has", () => {
    expect(nodeMark(entry({ presence: "b", a: null }))).toBe("added");
    expect(nodeMark(entry({ presence: "a", b: null }))).toBe("removed");
  });
  it("marks a node whose document, figures or columns changed", () => {
    expect(nodeMark(entry({ changes: ["params.condition"] }))).toBe("changed");
    expect(nodeMark(entry({ b: { ...figures, rows_out: 1 } }))).toBe("changed");
    const retyped = {
      added: [],
      removed: [],
      changed: [{ name: "x", from: "integer", to: "float" }],
    };
    expect(nodeMark(entry({ results: [{ column_changes: retyped }] }))).toBe("changed");
    expect(nodeMark(entry())).toBe("same");
  });
});

describe("keyCandidates", () => {
  const columns = (...names) => ({
    kept: true,
    columns: names.map((name) => ({ name, type: "string" })),
  });
  it("offers the columns both kept results have, in b's order", () => {
    expect(
      keyCandidates({
        results: [{ a: columns("id", "name", "old"), b: columns("name", "id", "new") }],
      }),
    ).toEqual(["name", "id"]);
  });
  it("offers one side's columns when only it is kept, and none without a result", () => {
    expect(
      keyCandidates({ results: [{ a: { kept: false, columns: null }, b: columns("id") }] }),
    ).toEqual(["id"]);
    expect(keyCandidates({ results: [] })).toEqual([]);
  });
});

describe("row counts and cells", () => {
  it("reads as one line", () => {
    expect(rowCountsLine({ added: 1, removed: 2, changed: 1200, unchanged: 0 })).toBe(
      "1 added · 2 removed · 1,200 changed · 0 unchanged",
    );
  });
  it("shows text as it is and other values as JSON", () => {
    expect([cellText("null"), cellText("1.5"), cellText(1.5), cellText(true)]).toEqual([
      "null",
      "1.5",
      "1.5",
      "true",
    ]);
  });
});
