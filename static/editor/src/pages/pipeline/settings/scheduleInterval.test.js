import { describe, expect, it } from "vitest";
import { cronOfInterval, describeCron, intervalOfCron } from "./scheduleInterval.js";

describe("schedule intervals", () => {
  it("write every N minutes or hours as cron", () => {
    expect(cronOfInterval({ every: 15, unit: "minutes" })).toBe("*/15 * * * *");
    expect(cronOfInterval({ every: 1, unit: "minutes" })).toBe("* * * * *");
    expect(cronOfInterval({ every: 6, unit: "hours" })).toBe("0 */6 * * *");
    expect(cronOfInterval({ every: 1, unit: "hours" })).toBe("0 * * * *");
  });

  it("read back the crons they write, and nothing else", () => {
    for (const interval of [
      { every: 15, unit: "minutes" },
      { every: 1, unit: "minutes" },
      { every: 1, unit: "hours" },
      { every: 12, unit: "hours" },
    ]) {
      expect(intervalOfCron(cronOfInterval(interval))).toEqual(interval);
    }
    expect(intervalOfCron("0 6 * * MON-FRI")).toBe(null);
    expect(intervalOfCron("*/7 * * * *")).toBe(null); // not regular across the hour
    expect(intervalOfCron("30 */2 * * *")).toBe(null);
    expect(intervalOfCron("@hourly")).toBe(null);
  });

  it("name a schedule's times in words when they are an interval", () => {
    expect(describeCron("*/15 * * * *")).toBe("every 15 minutes");
    expect(describeCron("0 * * * *")).toBe("every hour");
    expect(describeCron("0 6 * * *")).toBe("0 6 * * *");
  });
});
