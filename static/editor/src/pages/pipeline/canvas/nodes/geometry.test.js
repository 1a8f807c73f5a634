import { describe, expect, it } from "vitest";
import { cardGeometry, edgeEnd, handleTop } from "./geometry.js";

const port = (name) => ({ name, many: false, required: true });
const FILTER = { inputs: [port("in")], outputs: [port("out")] };
const CSV_INPUT = { inputs: [], outputs: [port("out")] };
const JOIN = { inputs: [port("left"), port("right")], outputs: [port("out")] };
const VALIDATE = { inputs: [port("in")], outputs: [port("valid"), port("invalid")] };

// What the browser draws (measured in Chromium): a 200 x 92 card whose handles, 15 px
// circles, are centred on the inside edge of its borders (4 px stripe on the left, 1 px on
// the right), half way down the head and the run line.
describe("a node card's geometry", () => {
  it("gives a one-port-a-side card its drawn size and handles", () => {
    expect(cardGeometry(FILTER, false)).toEqual({
      width: 200,
      height: 92,
      handles: [
        { id: "in", type: "target", position: "left", x: -3.5, y: 38.5, width: 15, height: 15 },
        { id: "out", type: "source", position: "right", x: 191.5, y: 38.5, width: 15, height: 15 },
      ],
    });
  });

  it("gives an input only its output handle", () => {
    expect(cardGeometry(CSV_INPUT, false).handles.map((handle) => handle.id)).toEqual(["out"]);
  });

  it("puts labelled ports on rows under the run line, one row per port a side", () => {
    const { height, handles } = cardGeometry(JOIN, false);
    expect(height).toBe(92 + 4 + 2 * 20 + 4);
    expect(handles.map(({ id, type, y }) => [id, type, y + 7.5])).toEqual([
      ["left", "target", 91 + 4 + 10],
      ["right", "target", 91 + 4 + 30],
      ["out", "source", 91 + 4 + 10],
    ]);
    expect(cardGeometry(VALIDATE, false).handles.map(({ id, y }) => [id, y + 7.5])).toEqual([
      ["in", 105],
      ["valid", 105],
      ["invalid", 125],
    ]);
  });

  it("makes room for the problem note above the port rows, not moving a lone port", () => {
    expect(cardGeometry(FILTER, true).height).toBe(92 + 42);
    expect(cardGeometry(FILTER, true).handles).toEqual(cardGeometry(FILTER, false).handles);
    expect(cardGeometry(JOIN, true).handles[0].y).toBe(cardGeometry(JOIN, false).handles[0].y + 42);
  });

  it("places a handle's CSS top inside the card's top border", () => {
    expect(handleTop(cardGeometry(FILTER, false).handles[0])).toBe(37.5);
  });

  it("ends edges on the outer middle of a handle, where React Flow ends them", () => {
    const [input, output] = cardGeometry(FILTER, false).handles;
    expect(edgeEnd({ x: 100, y: 10 }, input)).toEqual({ x: 96.5, y: 56 });
    expect(edgeEnd({ x: 100, y: 10 }, output)).toEqual({ x: 306.5, y: 56 });
  });
});
