import { describe, expect, it } from "vitest";
import { describeStoredPosition, isIncremental, positionText } from "./positions.js";

describe("an incremental input's stored position in words", () => {
  it("names a watermark's column and value", () => {
    expect(positionText({ column: "id", type: "integer", value: 1042 })).toBe("id = 1042");
  });

  it("counts the files read", () => {
    expect(positionText({ files: { "in/a.csv": [1, 2] } })).toBe("1 file");
    expect(positionText({ files: { "a.csv": [1, 2], "b.csv": [3, 4] } })).toBe("2 files");
  });

  it("gives the time and the run that reached it", () => {
    const stored = {
      position: { column: "id", value: 7 },
      updated_at: "2026-12-02T03:10:00",
      run_number: 12,
    };
    expect(describeStoredPosition(stored, "en-GB")).toBe("read up to id = 7 at 03:10, run #12");
  });

  it("says so when the shape is unknown", () => {
    expect(describeStoredPosition({ position: 3, updated_at: "nonsense", run_number: 1 })).toBe(
      "read up to an unknown position, run #1",
    );
  });

  it("knows incremental params", () => {
    expect(isIncremental({ incremental: { mode: "new_files" } })).toBe(true);
    expect(isIncremental({ incremental: null })).toBe(false);
    expect(isIncremental(undefined)).toBe(false);
  });
});
