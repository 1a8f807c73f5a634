import { describe, expect, it } from "vitest";
import {
  checkCounts,
  checkProblems,
  checkedColumns,
  countsText,
  worstStatus,
} from "./checkResults.js";

describe("check results", () => {
  it("counts passed, warned and failed checks, and nothing when none ran", () => {
    const counts = checkCounts([
      { status: "passed" },
      { status: "passed" },
      { status: "warned" },
      { status: "failed" },
    ]);
    expect(counts).toEqual({ passed: 2, warned: 1, failed: 1 });
    expect(countsText(counts)).toBe("2 ✓ 1 ! 1 ✗");
    expect(worstStatus(counts)).toBe("failed");
    expect(checkCounts(undefined)).toBeNull();
    expect(checkCounts([])).toBeNull();
  });

  it("leaves out the counts that are zero", () => {
    expect(countsText({ passed: 3, warned: 0, failed: 0 })).toBe("3 ✓");
    expect(worstStatus({ passed: 3, warned: 0, failed: 0 })).toBe("passed");
  });

  it("moves the problems at checks to the form's params paths", () => {
    const problems = [
      { field: "expect.0.column", message: "no such column" },
      { field: "params.path", message: "missing" },
    ];
    expect(checkProblems(problems)).toEqual([
      { field: "params.expect.0.column", message: "no such column" },
    ]);
  });

  it("offers the node's output columns as the checked view", () => {
    const columns = [{ name: "id", type: "integer", nullable: false }];
    expect(checkedColumns({ outputs: { out: columns } })).toEqual({
      views: { checked: columns },
    });
    expect(checkedColumns({ outputs: {} })).toBeNull();
  });
});
