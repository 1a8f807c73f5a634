import { describe, expect, it } from "vitest";
import { formatRate, rowsSummary, rowsWritten } from "../src/model/format.js";

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

describe("rows per second", () => {
  it("is shortened to thousands and millions", () => {
    expect(formatRate(1500, 1)).toBe("1.5k rows/s");
    expect(formatRate(3_000_000, 2)).toBe("1.5M rows/s");
    expect(formatRate(12, 4)).toBe("3 rows/s");
  });

  it("takes a shorter unit where space is tight", () => {
    expect(formatRate(128_600, 1, "/s")).toBe("128.6k/s");
  });

  it("is null without a positive duration", () => {
    expect(formatRate(10, 0)).toBeNull();
    expect(formatRate(null, 1)).toBeNull();
  });
});
