import { describe, expect, it } from "vitest";
import { spreadLayout } from "./layout.js";

const overlap = (a, sa, b, sb) =>
  a.x < b.x + sb.width && b.x < a.x + sa.width && a.y < b.y + sb.height && b.y < a.y + sa.height;

function overlaps(positions, sizes) {
  const ids = Object.keys(positions);
  return ids.flatMap((a, i) =>
    ids
      .slice(i + 1)
      .filter((b) => overlap(positions[a], sizes[a], positions[b], sizes[b]))
      .map((b) => [a, b]),
  );
}

describe("auto-layout with the cards' real sizes", () => {
  // What Graphviz answers for three sources into a join: boxes 77 px high, 38 px apart.
  const dot = {
    a: { x: 0, y: 0 },
    b: { x: 0, y: 115 },
    c: { x: 0, y: 230 },
    join: { x: 300, y: 115 },
  };

  it("leaves no two cards overlapping, problem banners included", () => {
    const sizes = {
      a: { width: 200, height: 134 },
      b: { width: 200, height: 92 },
      c: { width: 200, height: 134 },
      join: { width: 200, height: 190 },
    };
    expect(overlaps(dot, sizes)).not.toEqual([]);
    const spread = spreadLayout(dot, sizes);
    expect(overlaps(spread, sizes)).toEqual([]);
    expect(spread.a.y < spread.b.y && spread.b.y < spread.c.y).toBe(true);
  });

  it("keeps Graphviz's places where the cards fit", () => {
    const sizes = Object.fromEntries(
      Object.keys(dot).map((id) => [id, { width: 200, height: 80 }]),
    );
    expect(spreadLayout(dot, sizes)).toEqual(dot);
  });

  it("keeps a card wider than Graphviz's box clear of the next column", () => {
    const sizes = { a: { width: 240, height: 80 }, b: { width: 200, height: 80 } };
    expect(
      overlaps(spreadLayout({ a: { x: 0, y: 0 }, b: { x: 230, y: 0 } }, sizes), sizes),
    ).toEqual([]);
  });
});
