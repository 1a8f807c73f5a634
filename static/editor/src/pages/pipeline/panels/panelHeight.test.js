import { describe, expect, it } from "vitest";
import {
  MIN_PANEL_HEIGHT,
  PANEL_HEIGHT_KEY,
  clampPanelHeight,
  heightForKey,
  storedPanelHeight,
} from "./panelHeight.js";

const storage = (value) => ({ getItem: (key) => (key === PANEL_HEIGHT_KEY ? value : null) });

describe("the bottom panel's height", () => {
  it("is kept between its smallest and what leaves the canvas 160 px", () => {
    expect(clampPanelHeight(40, 800)).toBe(MIN_PANEL_HEIGHT);
    expect(clampPanelHeight(300.4, 800)).toBe(300);
    expect(clampPanelHeight(790, 800)).toBe(640);
  });

  it("stays at its smallest in a window too low for both", () => {
    expect(clampPanelHeight(300, 200)).toBe(MIN_PANEL_HEIGHT);
  });

  it("is read back from storage, or null when none or not a number was kept", () => {
    expect(storedPanelHeight(storage("360"))).toBe(360);
    expect(storedPanelHeight(storage(null))).toBe(null);
    expect(storedPanelHeight(storage("tall"))).toBe(null);
    expect(
      storedPanelHeight({
        getItem: () => {
          throw new Error("disabled");
        },
      }),
    ).toBe(null);
  });

  it("grows with the up arrow and shrinks with the down arrow, four times as much with Shift", () => {
    expect(heightForKey("ArrowUp", false, 300)).toBe(324);
    expect(heightForKey("ArrowDown", false, 300)).toBe(276);
    expect(heightForKey("ArrowUp", true, 300)).toBe(396);
    expect(heightForKey("Enter", false, 300)).toBe(null);
  });
});
