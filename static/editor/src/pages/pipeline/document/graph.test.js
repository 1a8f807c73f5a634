import { describe, expect, it } from "vitest";
import {
  addNode,
  applyPositions,
  copySelection,
  createNode,
  deleteSelected,
  edgeId,
  makeEdge,
  isStrayEdge,
  paste,
  selectAllChanges,
  splitPositionChanges,
  strayPorts,
  uniqueNodeId,
} from "./graph.js";
import { PORTS, link, node, portsOf } from "./graphFixtures.js";

describe("unique node ids", () => {
  it("numbers an operator's nodes from 1", () => {
    expect(uniqueNodeId("filter", [])).toBe("filter_1");
  });
  it("takes the smallest free number", () => {
    expect(uniqueNodeId("filter", ["filter_1", "filter_3"])).toBe("filter_2");
  });
  it("accepts a set of taken ids", () => {
    expect(uniqueNodeId("join", new Set(["join_1"]))).toBe("join_2");
  });
  it("makes ids the document accepts from odd operator names", () => {
    expect(uniqueNodeId("my.plugin op", [])).toBe("my_plugin_op_1");
    expect(uniqueNodeId("3d", [])).toMatch(/^[A-Za-z_][A-Za-z0-9_-]*$/);
  });
});

describe("adding nodes", () => {
  it("selects the new node only", () => {
    const nodes = addNode([node("a", "filter", { selected: true })], node("b", "filter"));
    expect(nodes.map((item) => [item.id, Boolean(item.selected)])).toEqual([
      ["a", false],
      ["b", true],
    ]);
  });
  it("rounds the drop position", () => {
    expect(createNode("filter", "processOperator", { x: 10.4, y: 20.6 }, "f").position).toEqual({
      x: 10,
      y: 21,
    });
  });
});

describe("deleting", () => {
  it("removes selected nodes with their edges, and selected edges", () => {
    const nodes = [
      node("a", "filter"),
      node("b", "filter", { selected: true }),
      node("c", "filter"),
      node("d", "filter"),
    ];
    const edges = [
      link("a", "b"),
      link("b", "c"),
      { ...link("c", "d"), selected: true },
      link("a", "d"),
    ];
    const result = deleteSelected(nodes, edges);
    expect(result.nodes.map((item) => item.id)).toEqual(["a", "c", "d"]);
    expect(result.edges.map(edgeId)).toEqual(["a.out->d.in"]);
    expect(result.changed).toBe(true);
  });
  it("says when nothing was selected", () => {
    const nodes = [node("a", "filter")];
    expect(deleteSelected(nodes, []).changed).toBe(false);
  });
  it("reconnects a deleted middle node's upstream to its downstream", () => {
    const nodes = [
      node("a", "csv_input"),
      node("b", "filter", { selected: true }),
      node("c", "filter"),
    ];
    const result = deleteSelected(nodes, [link("a", "b"), link("b", "c")], portsOf);
    expect(result.edges.map(edgeId)).toEqual(["a.out->c.in"]);
  });
  it("reconnects into the deleted node's port of a two-input downstream", () => {
    const nodes = [
      node("a", "csv_input"),
      node("r", "csv_input"),
      node("b", "filter", { selected: true }),
      node("j", "join"),
    ];
    const edges = [link("a", "b"), link("b", "j", "left"), link("r", "j", "right")];
    expect(deleteSelected(nodes, edges, portsOf).edges.map(edgeId)).toEqual([
      "r.out->j.right",
      "a.out->j.left",
    ]);
  });
  it("leaves neighbours unconnected when the node had several edges in or out, or they go too", () => {
    const nodes = [
      node("a", "csv_input"),
      node("a2", "csv_input"),
      node("u", "union", { selected: true }),
      node("c", "filter"),
    ];
    const edges = [link("a", "u"), link("a2", "u"), link("u", "c")];
    expect(deleteSelected(nodes, edges, portsOf).edges).toEqual([]);
    const chain = [
      node("a", "csv_input"),
      node("b", "filter", { selected: true }),
      node("c", "filter", { selected: true }),
    ];
    expect(deleteSelected(chain, [link("a", "b"), link("b", "c")], portsOf).edges).toEqual([]);
  });
  it("does not reconnect where the connection would be refused (here: a duplicate)", () => {
    const nodes = [
      node("a", "csv_input"),
      node("b", "filter", { selected: true }),
      node("u", "union"),
    ];
    const edges = [link("a", "b"), link("b", "u"), link("a", "u")];
    expect(deleteSelected(nodes, edges, portsOf).edges.map(edgeId)).toEqual(["a.out->u.in"]);
  });
});

describe("copy and paste", () => {
  const nodes = [
    node("filter_1", "filter", { selected: true }),
    node("filter_2", "filter", { selected: true }),
    node("read", "csv_input"),
  ];
  const edges = [link("filter_1", "filter_2"), link("read", "filter_1")];

  it("copies the selection and the edges inside it", () => {
    const clipboard = copySelection(nodes, edges);
    expect(clipboard.nodes.map((item) => item.id)).toEqual(["filter_1", "filter_2"]);
    expect(clipboard.edges).toEqual([
      { source: "filter_1", sourceHandle: "out", target: "filter_2", targetHandle: "in" },
    ]);
  });

  it("pastes copies with new unique ids, moved, selected, and connected among themselves", () => {
    const clipboard = copySelection(nodes, edges);
    const result = paste(nodes, edges, clipboard, { x: 40, y: 40 });
    const pasted = result.nodes.filter((item) => item.selected);
    expect(pasted.map((item) => item.id)).toEqual(["filter_3", "filter_4"]);
    expect(pasted[0].position).toEqual({ x: 40, y: 40 });
    expect(
      result.nodes.filter((item) => !pasted.includes(item)).every((item) => !item.selected),
    ).toBe(true);
    expect(result.edges.map(edgeId)).toContain("filter_3.out->filter_4.in");
    expect(new Set(result.nodes.map((item) => item.id)).size).toBe(result.nodes.length);
  });

  it("gives pasted params their own copy", () => {
    const clipboard = copySelection(
      [
        node("f", "filter", {
          selected: true,
          data: { operator: "filter", label: "", params: { condition: "x > 1" } },
        }),
      ],
      [],
    );
    const result = paste([], [], clipboard);
    result.nodes[0].data.params.condition = "changed";
    expect(clipboard.nodes[0].data.params.condition).toBe("x > 1");
  });

  it("copies nothing when nothing is selected", () => {
    expect(copySelection([node("a", "filter")], [])).toBeNull();
  });
});

describe("moving nodes", () => {
  it("moves the nodes named and keeps the others as they are", () => {
    const nodes = [node("a", "filter"), node("b", "filter")];
    const moved = applyPositions(nodes, { a: { x: 5, y: 7 } });
    expect(moved[0].position).toEqual({ x: 5, y: 7 });
    expect(moved[1]).toBe(nodes[1]);
    expect(nodes[0].position).toEqual({ x: 0, y: 0 });
  });
  it("gives back the same nodes when none of them moves, so that no undo step is made", () => {
    const nodes = [node("a", "filter")];
    expect(applyPositions(nodes, { a: { x: 0, y: 0 }, gone: { x: 1, y: 1 } })).toBe(nodes);
  });
  it("takes React Flow's position changes apart from its other changes", () => {
    const select = { id: "b", type: "select", selected: true };
    const changes = [
      { id: "a", type: "position", position: { x: 1, y: 2 }, dragging: true },
      select,
      { id: "c", type: "position", dragging: false },
    ];
    expect(splitPositionChanges(changes)).toEqual({
      positions: { a: { x: 1, y: 2 } },
      dragging: true,
      others: [select],
    });
    expect(splitPositionChanges([select])).toEqual({
      positions: null,
      dragging: false,
      others: [select],
    });
  });
  it("says when moves are not those of a drag in progress: its last one, the arrow keys'", () => {
    const dropped = [{ id: "a", type: "position", position: { x: 3, y: 4 }, dragging: false }];
    expect(splitPositionChanges(dropped)).toEqual({
      positions: { a: { x: 3, y: 4 } },
      dragging: false,
      others: [],
    });
  });
});

describe("stored edges that name a port their node does not have", () => {
  const nodes = [node("read", "csv_input"), node("f", "filter"), node("mystery", "not_installed")];
  const isKnown = (item) => item.data.operator in PORTS;
  const bad = makeEdge({ source: "read", sourceHandle: "out", target: "f", targetHandle: "rows" });
  const good = link("read", "f");

  it("are found with the ports they name, for their handles to be drawn", () => {
    const stray = strayPorts(
      nodes,
      [good, bad, link("read", "mystery", "whatever")],
      portsOf,
      isKnown,
    );
    expect(stray).toEqual({ f: { inputs: ["rows"], outputs: [] } });
    expect(isStrayEdge(bad, stray)).toBe(true);
    expect(isStrayEdge(good, stray)).toBe(false);
  });

  it("can be selected and deleted like any edge", () => {
    const result = deleteSelected(nodes, [good, { ...bad, selected: true }]);
    expect(result.edges).toEqual([good]);
  });
});

describe("Ctrl+A", () => {
  it("selects every node not yet selected", () => {
    const changes = selectAllChanges([
      node("a", "filter"),
      node("b", "filter", { selected: true }),
    ]);
    expect(changes).toEqual([{ id: "a", type: "select", selected: true }]);
  });
});
