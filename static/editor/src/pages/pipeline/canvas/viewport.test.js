import { describe, expect, it } from "vitest";
import {
  BIG_TITLE_PX,
  FIT_MIN_ZOOM,
  READABLE_ZOOM,
  cardDetail,
  fittedViewport,
  isInView,
  isZoomedOut,
  openingViewport,
} from "./viewport.js";

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

// Nine cards in a row, 260 px apart, as the nine-node pipeline.
const nineNodes = { x: 0, y: 0, width: 8 * 260 + 200, height: 92 };
const canvas = { width: 1000, height: 500 };

describe("the zoom the editor opens at", () => {
  it("keeps card text readable when the graph would fit only smaller, showing its start", () => {
    const view = openingViewport(nineNodes, canvas);
    expect(view.zoom).toBe(READABLE_ZOOM);
    expect(view.x).toBeGreaterThan(0); // the first card's left edge, a margin in
    expect(view.x).toBeLessThanOrEqual(40);
    expect(view.y).toBeCloseTo((500 - 92 * READABLE_ZOOM) / 2); // a side that fits is centred
  });

  it("fits a small graph whole, centred, up to a zoom of 1.2", () => {
    const view = openingViewport({ x: 100, y: 50, width: 460, height: 92 }, canvas);
    expect(view.zoom).toBe(1.2);
    expect(isInView({ x: 100, y: 50, width: 460, height: 92 }, view, canvas)).toBe(true);
    expect(view.x + 100 * view.zoom).toBeCloseTo(1000 - (100 + 460) * view.zoom - view.x);
  });
});

describe("the readable zoom", () => {
  it("makes a card's smallest text, 12.5 px, 11 px on the screen", () => {
    expect(12.5 * READABLE_ZOOM).toBeCloseTo(11);
  });
});

describe("fit view", () => {
  it("shows a graph whole when it fits at a zoom where titles are readable", () => {
    const view = fittedViewport(nineNodes, { width: 1280, height: 500 });
    expect(view.zoom).toBeGreaterThanOrEqual(FIT_MIN_ZOOM);
    expect(isInView(nineNodes, view, { width: 1280, height: 500 })).toBe(true);
  });

  it("stops at the zoom where a title-only card's title is 11 px", () => {
    const huge = { x: 0, y: 0, width: 40 * 260, height: 3000 };
    const view = fittedViewport(huge, canvas);
    expect(view.zoom).toBeCloseTo(FIT_MIN_ZOOM);
    expect(BIG_TITLE_PX * view.zoom).toBeCloseTo(11);
    expect(cardDetail(view.zoom)).toBe("title");
  });
});

describe("what a card shows", () => {
  it("is all its text from 0.6, its title alone below, and nothing below 0.2", () => {
    expect(cardDetail(1)).toBe("full");
    expect(cardDetail(0.6)).toBe("full");
    expect(cardDetail(0.5)).toBe("title");
    expect(cardDetail(FIT_MIN_ZOOM)).toBe("title");
    expect(cardDetail(0.19)).toBe("box");
  });
});
