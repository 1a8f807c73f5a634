import { describe, expect, it } from "vitest";
import { durationLabel } from "./durations.js";

describe("run durations", () => {
  it("name what each of a run's three durations measures", () => {
    const shown = ["engine", "recorded", "nodes"].map((kind) => durationLabel(kind, 0.404));
    expect(shown.map((label) => label.text.replace(/[\d.]+\s*m?s/, "…"))).toEqual([
      "ran …",
      "start to end …",
      "nodes over …",
    ]);
    expect(new Set(shown.map((label) => label.title)).size).toBe(3);
    expect(shown[1].title).toMatch(/engine's time plus/);
  });
});
