import { describe, expect, it } from "vitest";
import { FRESH, runOptionTitle, untunedLabel, upTo, withTuning } from "./runOptions.js";

describe("the per-run tuning switch", () => {
  it("leaves the options as they are when tuning is on, and asks for tuning false when off", () => {
    expect(withTuning(FRESH, true)).toBe(FRESH);
    expect(withTuning(upTo("adults"), false)).toEqual({ up_to: "adults", tuning: false });
  });

  it("names an untuned start after what it runs", () => {
    expect(runOptionTitle(withTuning({}, false))).toBe("Run, untuned");
    expect(runOptionTitle(withTuning(FRESH, false))).toBe("Run fresh, untuned");
    expect(runOptionTitle(withTuning(upTo("adults"), false))).toBe("Run up to adults, untuned");
    expect(runOptionTitle(FRESH)).toBe("Run fresh");
  });

  it("labels only runs recorded as untuned", () => {
    expect(untunedLabel({ tuning: false }).text).toBe("untuned");
    expect(untunedLabel({ tuning: true })).toBeNull();
    expect(untunedLabel({})).toBeNull();
  });
});
