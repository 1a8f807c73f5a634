import { describe, expect, it } from "vitest";
import { isInView, isZoomedOut } from "./viewport.js";

describe("whether the graph shows whole on the canvas", () => {
  const size = { width: 800, height: 600 };
  const graph = { x: 0, y: 0, width: 1000, height: 200 };

  it("is when the viewport's zoom and offset put it inside the canvas", () => {
    expect(isInView(graph, { x: 20, y: 100, zoom: 0.7 }, size)).toBe(true);
  });

  it("is not when a part of it is past an edge", () => {
    expect(isInView(graph, { x: 0, y: 0, zoom: 1 }, size)).toBe(false);
    expect(isInView(graph, { x: 20, y: 500, zoom: 0.7 }, size)).toBe(false);
    expect(isInView(graph, { x: -30, y: 100, zoom: 0.7 }, size)).toBe(false);
  });

  it("forgives the rounding of a view that was fitted exactly", () => {
    expect(isInView(graph, { x: 0, y: 0, zoom: 0.8000001 }, size)).toBe(true);
  });
});

describe("the zoom where the canvas draws less", () => {
  it("is below 0.4", () => {
    expect(isZoomedOut({ transform: [0, 0, 0.09] })).toBe(true);
    expect(isZoomedOut({ transform: [0, 0, 0.4] })).toBe(false);
    expect(isZoomedOut({ transform: [0, 0, 1] })).toBe(false);
  });
});
