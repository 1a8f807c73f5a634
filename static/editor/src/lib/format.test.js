import { describe, expect, it } from "vitest";
import { fileName, formatCell, formatRate, rowsSummary, rowsWritten } from "./format.js";

describe("the rows a node's card shows after a run", () => {
  it("gives rows in → rows out for inputs and processing steps", () => {
    expect(rowsSummary("process", { rows_in: { in: 6 }, rows_out: 4 }, "succeeded")).toBe("6 → 4");
    expect(rowsSummary("input", { rows_in: {}, rows_out: 1234 }, "succeeded")).toBe("– → 1,234");
  });

  it("gives the rows an output wrote, not the none it passes on", () => {
    expect(
      rowsSummary("output", { rows_in: { in: 3 }, rows_out: 0, rows_written: 3 }, "succeeded"),
    ).toBe("3 written");
    expect(rowsSummary("output", { rows_in: { in: 1 }, rows_out: 0 }, "succeeded")).toBe(
      "1 written",
    );
  });

  it("is null when the run said nothing of rows", () => {
    expect(rowsSummary("process", { rows_in: {}, duration_s: 0.1 }, "succeeded")).toBeNull();
    expect(rowsSummary("output", {}, "succeeded")).toBeNull();
  });

  it("never shows rows a cancelled or failed output did not write", () => {
    const read = { rows_in: { in: 2_000_000 }, rows_out: 0 };
    expect(rowsSummary("output", read, "cancelled")).toBeNull();
    expect(rowsSummary("output", read, "failed")).toBeNull();
    expect(rowsWritten(read, "cancelled")).toBeNull();
    expect(rowsSummary("output", { ...read, rows_written: 10 }, "cancelled")).toBe("10 written");
  });

  it("counts what an output read as written when its operator does not say", () => {
    expect(rowsWritten({ rows_in: { left: 2, right: 3 } }, "succeeded")).toBe(5);
    expect(rowsWritten({ rows_in: { in: 9 }, rows_written: 7 }, "succeeded")).toBe(7);
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

describe("preview cells", () => {
  it("show dates as dates and times without the T", () => {
    expect(formatCell("2024-01-05T00:00:00", "date")).toBe("2024-01-05");
    expect(formatCell("2024-01-05T00:00:00.000", "date")).toBe("2024-01-05");
    expect(formatCell("2024-01-05T10:11:12", "datetime")).toBe("2024-01-05 10:11:12");
    expect(formatCell("2024-01-05T10:11:12.500", "datetime")).toBe("2024-01-05 10:11:12.5");
    expect(formatCell(Date.UTC(2024, 0, 5), "date")).toBe("2024-01-05");
  });

  it("leave other values as they are", () => {
    expect(formatCell("2024-01-05T00:00:00", "string")).toBe("2024-01-05T00:00:00");
    expect(formatCell(3, "integer")).toBe("3");
    expect(formatCell(null, "date")).toBe("null");
  });
});

describe("download names", () => {
  it("are the pipeline's name, without what file names refuse", () => {
    expect(fileName("Orders / daily", "png")).toBe("Orders daily.png");
    expect(fileName("", "svg")).toBe("pipeline.svg");
  });
});
