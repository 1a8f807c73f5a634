import { describe, expect, it } from "vitest";
import { sizeNodes } from "./useSizedNodes.js";
import { cardGeometry } from "./nodes/geometry.js";

const port = (name) => ({ name, many: false, required: true });
const FILTER = { inputs: [port("in")], outputs: [port("out")] };
const JOIN = { inputs: [port("left"), port("right")], outputs: [port("out")] };

describe("nodes sized for React Flow", () => {
  const node = (id, operator) => ({
    id,
    type: "processOperator",
    position: { x: 0, y: 0 },
    data: { operator },
  });
  const portsOf = (item) => ({ filter: FILTER, join: JOIN })[item.data.operator];

  it("carry their card's size as measured, and its handles", () => {
    const [sized] = sizeNodes([node("a", "join")], portsOf, new Set(), new WeakMap());
    const { width, height, handles } = cardGeometry(JOIN, false);
    expect(sized).toMatchObject({
      id: "a",
      data: { operator: "join" },
      measured: { width, height },
      handles,
    });
  });

  it("stay the same objects while the nodes and their problems do", () => {
    const copies = new WeakMap();
    const nodes = [node("a", "filter"), node("b", "filter")];
    const first = sizeNodes(nodes, portsOf, new Set(), copies);
    const moved = { ...nodes[1], position: { x: 5, y: 0 } };
    const second = sizeNodes([nodes[0], moved], portsOf, new Set(), copies);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).not.toBe(first[1]);
    expect(second[1].position).toEqual({ x: 5, y: 0 });
  });

  it("grow by the problem note when their node has problems", () => {
    const copies = new WeakMap();
    const nodes = [node("a", "filter")];
    const plain = sizeNodes(nodes, portsOf, new Set(), copies);
    const flagged = sizeNodes(nodes, portsOf, new Set(["a"]), copies);
    expect(flagged[0]).not.toBe(plain[0]);
    expect(flagged[0].measured.height).toBe(92 + 42);
  });

  it("get a handle for each stray port their stored edges name", () => {
    const stray = { a: { inputs: ["rows"], outputs: [] } };
    const [sized] = sizeNodes([node("a", "filter")], portsOf, new Set(), new WeakMap(), stray);
    expect(sized.handles.map((handle) => handle.id)).toEqual(["in", "out", "rows"]);
    expect(sized.handles[2]).toMatchObject({ type: "target", stray: true });
    expect(sized.data.strayPorts).toEqual(stray.a);
  });
});
