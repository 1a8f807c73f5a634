import { describe, expect, it } from "vitest";
import { connect, connectionProblem, handleKey, refusedEnds } from "./graph.js";
import { link, node, portsOf } from "./graphFixtures.js";

describe("connecting", () => {
  const nodes = [
    node("read", "csv_input"),
    node("a", "filter"),
    node("b", "filter"),
    node("u", "union"),
    node("j", "join"),
  ];

  it("adds an edge whose handles are the ports", () => {
    const result = connect(
      nodes,
      [],
      { source: "read", sourceHandle: "out", target: "a", targetHandle: "in" },
      portsOf,
    );
    expect(result.edges).toEqual([
      {
        id: "read.out->a.in",
        source: "read",
        sourceHandle: "out",
        target: "a",
        targetHandle: "in",
      },
    ]);
  });

  it("refuses an edge that closes a cycle and names its nodes", () => {
    const edges = [link("a", "b")];
    const result = connect(
      nodes,
      edges,
      { source: "b", sourceHandle: "out", target: "a", targetHandle: "in" },
      portsOf,
    );
    expect(result.error).toMatch(/cycle \(a → b → a\)/);
    expect(result.edges).toBeUndefined();
  });

  it("refuses a node feeding itself", () => {
    expect(
      connectionProblem(
        nodes,
        [],
        { source: "a", sourceHandle: "out", target: "a", targetHandle: "in" },
        portsOf,
      ),
    ).toMatch(/cycle/);
  });

  it("refuses a second edge into a single-input port", () => {
    const edges = [link("read", "a")];
    const problem = connectionProblem(
      nodes,
      edges,
      { source: "b", sourceHandle: "out", target: "a", targetHandle: "in" },
      portsOf,
    );
    expect(problem).toMatch(/takes one connection.*from read/);
  });

  it("allows many edges into a port that takes many", () => {
    const edges = [link("read", "u")];
    expect(
      connectionProblem(
        nodes,
        edges,
        { source: "a", sourceHandle: "out", target: "u", targetHandle: "in" },
        portsOf,
      ),
    ).toBeNull();
  });

  it("treats each input port of a join on its own", () => {
    const edges = [link("read", "j", "left")];
    expect(
      connectionProblem(
        nodes,
        edges,
        { source: "a", sourceHandle: "out", target: "j", targetHandle: "right" },
        portsOf,
      ),
    ).toBeNull();
    expect(
      connectionProblem(
        nodes,
        edges,
        { source: "a", sourceHandle: "out", target: "j", targetHandle: "left" },
        portsOf,
      ),
    ).toMatch(/takes one/);
  });

  it("refuses unknown ports and duplicate edges", () => {
    expect(
      connectionProblem(
        nodes,
        [],
        { source: "read", sourceHandle: "out", target: "a", targetHandle: "nope" },
        portsOf,
      ),
    ).toMatch(/no input "nope"/);
    const edges = [link("read", "u")];
    expect(
      connectionProblem(
        nodes,
        edges,
        { source: "read", sourceHandle: "out", target: "u", targetHandle: "in" },
        portsOf,
      ),
    ).toMatch(/already connected/);
  });

  it("never changes its arguments", () => {
    const edges = [link("read", "a")];
    const frozen = Object.freeze([...edges]);
    connect(
      nodes,
      frozen,
      { source: "a", sourceHandle: "out", target: "b", targetHandle: "in" },
      portsOf,
    );
    expect(frozen).toHaveLength(1);
  });
});

describe("ends refused while a connection is dragged", () => {
  // read → a → b, b → u; j takes one edge per side and has one into "left".
  const nodes = [
    node("read", "csv_input"),
    node("a", "filter"),
    node("b", "filter"),
    node("u", "union"),
    node("j", "join"),
  ];
  const edges = [link("read", "a"), link("a", "b"), link("b", "u"), link("read", "j", "left")];
  const fromOutput = (nodeId) =>
    refusedEnds(nodes, edges, { nodeId, id: "out", type: "source" }, portsOf);

  it("are the inputs that the drop would refuse, each with the drop's reason", () => {
    const refused = fromOutput("b");
    const inputs = nodes.flatMap((item) =>
      portsOf(item).inputs.map((port) => handleKey(item.id, "target", port.name)),
    );
    const why = Object.fromEntries(
      inputs
        .filter((key) => refused.has(key))
        .map((key) => [key.split("\u0000")[0] + "." + key.split("\u0000")[2], refused.get(key)]),
    );
    expect(Object.keys(why).sort()).toEqual(["a.in", "b.in", "j.left", "u.in"]);
    expect(why["a.in"]).toMatch(/cycle \(a → b → a\)/);
    expect(why["b.in"]).toMatch(/cannot feed itself/);
    expect(why["u.in"]).toMatch(/already connected/);
    expect(why["j.left"]).toMatch(/takes one connection/);
  });

  it("agree with connectionProblem on every input", () => {
    const refused = fromOutput("read");
    for (const item of nodes) {
      for (const port of portsOf(item).inputs) {
        const problem = connectionProblem(
          nodes,
          edges,
          { source: "read", sourceHandle: "out", target: item.id, targetHandle: port.name },
          portsOf,
        );
        expect(refused.get(handleKey(item.id, "target", port.name)) ?? null).toBe(problem);
      }
    }
  });

  it("include the other outputs, but not the handle the drag started from", () => {
    const refused = fromOutput("a");
    expect(refused.get(handleKey("b", "source", "out"))).toMatch(/an output connects to an input/);
    expect(refused.has(handleKey("a", "source", "out"))).toBe(false);
  });

  it("from an input are the outputs the drop would refuse", () => {
    const refused = refusedEnds(nodes, edges, { nodeId: "a", id: "in", type: "target" }, portsOf);
    expect(refused.get(handleKey("b", "source", "out"))).toMatch(/takes one connection|cycle/);
    expect(refused.get(handleKey("read", "source", "out"))).toMatch(/already connected/);
    expect(refused.get(handleKey("u", "target", "in"))).toMatch(/an input connects to an output/);
  });

  it("leave a free input of another branch open", () => {
    const refused = refusedEnds(nodes, [], { nodeId: "read", id: "out", type: "source" }, portsOf);
    expect(refused.has(handleKey("j", "target", "right"))).toBe(false);
    expect(refused.has(handleKey("a", "target", "in"))).toBe(false);
  });
});
