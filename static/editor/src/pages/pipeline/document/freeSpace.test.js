import { describe, expect, it } from "vitest";
import { boundsOf, freeSpotAround, nearestFreeSpot } from "./freeSpace.js";

const card = { width: 200, height: 92 };
const at = (x, y, size = card) => ({ x, y, ...size });
const overlap = (a, b) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe("the free spot nearest where something new is wanted", () => {
  it("is the wanted spot itself when nothing is there", () => {
    expect(nearestFreeSpot([at(0, 0)], { x: 400.4, y: 10 }, card)).toEqual({ x: 400, y: 10 });
  });

  it("stays near a row of cards instead of going past its end (where Add note went)", () => {
    const row = Array.from({ length: 9 }, (_, index) => at(index * 260, 0));
    const note = { width: 240, height: 140 };
    const spot = nearestFreeSpot(row, { x: 1000, y: -20 }, note);
    expect(row.some((box) => overlap({ ...spot, ...note }, box))).toBe(false);
    expect(Math.abs(spot.x - 1000)).toBeLessThan(100);
    expect(Math.abs(spot.y + 20)).toBeLessThanOrEqual(200);
  });

  it("keeps a gap to every card", () => {
    const spot = nearestFreeSpot([at(0, 0)], { x: 10, y: 10 }, card, 24);
    const grown = { ...spot, width: card.width + 24, height: card.height + 24 };
    expect(overlap(grown, at(-24, -24, { width: 248, height: 140 }))).toBe(false);
  });

  it("prefers right and below on a tie, the way data flows", () => {
    const spot = nearestFreeSpot(
      [at(0, 0, { width: 10, height: 10 })],
      { x: 0, y: 0 },
      {
        width: 10,
        height: 10,
      },
    );
    expect(spot.x >= 0 && spot.y >= 0).toBe(true);
  });
});

describe("a box centred on a point", () => {
  it("is cornered half its size up and left when free", () => {
    expect(freeSpotAround([], { x: 100, y: 100 }, card)).toEqual({ x: 0, y: 54 });
  });
});

describe("the bounds of boxes", () => {
  it("hold them all, and are null for none", () => {
    expect(boundsOf([at(0, 0), at(300, 100)])).toEqual({ x: 0, y: 0, width: 500, height: 192 });
    expect(boundsOf([])).toBe(null);
  });
});
