import { describe, expect, it } from "vitest";
import { rowsSummary, rowsWritten } from "../src/format.js";

describe("the rows a node's card shows after a run", () => {
  it("gives rows in → rows out for inputs and processing steps", () => {
    expect(rowsSummary("process", { rows_in: { in: 6 }, rows_out: 4 })).toBe("6 → 4");
    expect(rowsSummary("input", { rows_in: {}, rows_out: 1234 })).toBe("– → 1,234");
  });

  it("gives the rows an output wrote, not the none it passes on", () => {
    expect(rowsSummary("output", { rows_in: { in: 3 }, rows_out: 0, rows_written: 3 })).toBe("3 rows written");
    expect(rowsSummary("output", { rows_in: { in: 1 }, rows_out: 0 })).toBe("1 row written");
  });

  it("is null when the run said nothing of rows", () => {
    expect(rowsSummary("process", { rows_in: {}, duration_s: 0.1 })).toBeNull();
    expect(rowsSummary("output", {})).toBeNull();
  });

  it("counts what an output read as written when its operator does not say", () => {
    expect(rowsWritten({ rows_in: { left: 2, right: 3 } })).toBe(5);
    expect(rowsWritten({ rows_in: { in: 9 }, rows_written: 7 })).toBe(7);
  });
});
