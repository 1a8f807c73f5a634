import { describe, expect, it } from "vitest";
import { runOrigin } from "./runOrigin.js";

describe("runOrigin", () => {
  it("names a backfill's run by its backfill and interval", () => {
    const run = {
      trigger: "backfill",
      started_from: {
        kind: "backfill",
        backfill: 7,
        interval_start: "2024-01-01T00:00:00+00:00",
        interval_end: "2024-01-02T00:00:00+00:00",
      },
    };
    expect(runOrigin(run, "you")).toEqual({
      text: "backfill 7 · 2024-01-01 00:00 → 2024-01-02 00:00",
      title: "as you",
    });
  });

  it("names the trigger that started a run, with its event in the title", () => {
    const run = {
      trigger: "trigger",
      triggered_by: "trigger 5 (file): drop/a.csv appeared",
      started_from: { kind: "trigger", trigger: 5, trigger_kind: "file", name: "Drops" },
    };
    expect(runOrigin(run, null)).toEqual({
      text: "triggered by Drops (file)",
      title: "trigger 5 (file): drop/a.csv appeared · as its owner",
    });
    const unnamed = { ...run, started_from: { ...run.started_from, name: "" } };
    expect(runOrigin(unnamed, null).text).toBe("triggered by trigger 5 (file)");
  });

  it("falls back to the event's words once the trigger is deleted", () => {
    const run = { trigger: "trigger", triggered_by: "trigger 5 (file): x", started_from: null };
    expect(runOrigin(run, "alice")).toEqual({
      text: "triggered by trigger 5 (file): x",
      title: "as alice",
    });
  });

  it("says scheduled, or who started it by hand", () => {
    expect(runOrigin({ trigger: "schedule" }, "alice").text).toBe("scheduled (alice)");
    expect(runOrigin({ trigger: "manual" }, "you")).toEqual({ text: "you" });
    expect(runOrigin({ trigger: "manual" }, null)).toBeNull();
  });
});
