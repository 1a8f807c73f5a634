import { describe, expect, it } from "vitest";
import { beginMove, createOverlay } from "./overlay.js";

describe("beginMove", () => {
  it("applies a move's answer when no other move began since", () => {
    const overlay = createOverlay();
    const settle = beginMove(overlay);
    settle((value) => ({ ...value, viewed: "run 1" }));
    expect(overlay.get().viewed).toBe("run 1");
  });

  it("drops a slow answer once the user moved elsewhere", () => {
    const overlay = createOverlay();
    const pickPastRun = beginMove(overlay);
    beginMove(overlay)((value) => ({ ...value, inside: "node clean" }));
    pickPastRun((value) => ({ ...value, viewed: "run 1", inside: null }));
    expect(overlay.get().inside).toBe("node clean");
    expect(overlay.get().viewed).toBe(null);
  });
});
