import { describe, expect, it } from "vitest";
import { connectTargets, portLabel } from "./keyboardConnect.js";
import { link, node, portsOf } from "./graphFixtures.js";

const at = (id, operator, x, y = 0) => node(id, operator, { position: { x, y } });
const labelOf = (item) => item.data.label || item.id;
const fromOutput = (nodeId) => ({ nodeId, id: "out", type: "source" });

describe("ports named for assistive technology", () => {
  it("names the side and the node, and the port when its side has several", () => {
    expect(portLabel("source", "out", "Read people", 1)).toBe("Output of Read people");
    expect(portLabel("target", "right", "Join", 2)).toBe('Input "right" of Join');
  });
});

describe("the ends a keyboard connection is offered", () => {
  it("lists the inputs that take it, the nearest node to the right first", () => {
    const nodes = [
      at("read", "csv_input", 0),
      at("far", "filter", 900),
      at("near", "filter", 300),
      at("behind", "filter", -200),
    ];
    const ids = connectTargets(nodes, [], fromOutput("read"), portsOf, labelOf).map(
      (target) => target.nodeId,
    );
    expect(ids).toEqual(["near", "far", "behind"]);
  });

  it("leaves out what the rules refuse: a taken input, a cycle, its own node", () => {
    const nodes = [at("a", "filter", 0), at("b", "filter", 200), at("c", "filter", 400)];
    const edges = [link("b", "a"), link("a", "c")];
    // c already has its one input; b feeds a, so a → b would be a cycle.
    expect(connectTargets(nodes, edges, fromOutput("a"), portsOf, labelOf)).toEqual([]);
  });

  it("offers each input of a node with several, in their order, as a connection to make", () => {
    const nodes = [at("read", "csv_input", 0), at("join", "join", 300)];
    const targets = connectTargets(nodes, [], fromOutput("read"), portsOf, labelOf);
    expect(targets.map((target) => target.label)).toEqual([
      'Input "left" of join',
      'Input "right" of join',
    ]);
    expect(targets[1].connection).toEqual({
      source: "read",
      sourceHandle: "out",
      target: "join",
      targetHandle: "right",
    });
  });

  it("from an input, lists the outputs, the nearest node to the left first", () => {
    const nodes = [
      at("keep", "filter", 500),
      at("left", "csv_input", 100),
      at("right", "csv_input", 900),
    ];
    const from = { nodeId: "keep", id: "in", type: "target" };
    const targets = connectTargets(nodes, [], from, portsOf, labelOf);
    expect(targets.map((target) => [target.nodeId, target.label])).toEqual([
      ["left", "Output of left"],
      ["right", "Output of right"],
    ]);
  });
});
