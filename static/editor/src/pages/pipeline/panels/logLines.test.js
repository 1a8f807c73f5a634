import { describe, expect, it } from "vitest";
import { noLogsText } from "./logLines.js";

describe("the empty Logs tab", () => {
  it("asks for a run only before there is one", () => {
    expect(noLogsText({ runId: null }, "")).toMatch(/^No log lines yet. Run the pipeline/);
  });

  it("says a finished run wrote no log lines rather than asking for a run", () => {
    const run = { runId: 7, number: 3, status: "succeeded" };
    expect(noLogsText(run, "")).toBe("This run wrote no log lines.");
    expect(noLogsText(run, "filter_1")).toBe("This node wrote no log lines in run #3.");
    expect(noLogsText({ ...run, status: "running" }, "")).toBe("No log lines from this run yet.");
  });
});
