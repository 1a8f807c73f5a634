import { describe, expect, it } from "vitest";
import { byMonth } from "./BackfillPanel.jsx";

describe("byMonth", () => {
  it("groups intervals by the month of their start, in order", () => {
    const day = (start, status) => ({ start, end: start, status });
    const months = byMonth([
      day("2024-01-30T00:00:00+00:00", "succeeded"),
      day("2024-01-31T00:00:00+00:00", "failed"),
      day("2024-02-01T00:00:00+00:00", "waiting"),
    ]);
    expect(months.map(([month, days]) => [month, days.length])).toEqual([
      ["2024-01", 2],
      ["2024-02", 1],
    ]);
  });
});
