import { describe, expect, it } from "vitest";
import { createCatalog, nodePorts, paletteGroups } from "./catalog.js";
import statuses from "./statuses.json";

const ROUTE = {
  name: "route",
  kind: "process",
  inputs: [{ name: "in", many: false, required: true, description: "" }],
  outputs: [{ name: "otherwise", many: false, required: true, description: "" }],
  outputs_from: { param: "conditions", key: "name", after: ["otherwise"] },
};
const FILTER = {
  name: "filter",
  kind: "process",
  inputs: [{ name: "in" }],
  outputs: [{ name: "out" }],
  outputs_from: null,
};

const names = (ports) => ports.outputs.map((port) => port.name);

describe("nodePorts", () => {
  it("gives a route one output per condition, in order, then otherwise", () => {
    const params = {
      conditions: [
        { name: "big", condition: "amount > 9" },
        { name: "été", condition: "" },
      ],
    };
    expect(names(nodePorts(ROUTE, params))).toEqual(["big", "été", "otherwise"]);
    expect(nodePorts(ROUTE, params).inputs).toBe(ROUTE.inputs);
  });
  it("follows conditions as they are added, renamed and removed", () => {
    expect(names(nodePorts(ROUTE, {}))).toEqual(["otherwise"]);
    expect(names(nodePorts(ROUTE, { conditions: [{ name: "a" }] }))).toEqual(["a", "otherwise"]);
    expect(names(nodePorts(ROUTE, { conditions: [{ name: "b" }, { name: "c" }] }))).toEqual([
      "b",
      "c",
      "otherwise",
    ]);
    expect(names(nodePorts(ROUTE, { conditions: [{ name: "c" }] }))).toEqual(["c", "otherwise"]);
  });
  it("draws no port for a name being typed that the server would refuse", () => {
    const params = {
      conditions: [
        { name: "" },
        { name: "a" },
        { name: "a" },
        { name: "otherwise" },
        { condition: "x" },
        null,
      ],
    };
    expect(names(nodePorts(ROUTE, params))).toEqual(["a", "otherwise"]);
    expect(names(nodePorts(ROUTE, { conditions: "not a list" }))).toEqual(["otherwise"]);
  });
  it("leaves ordinary operators' ports as the catalog declares them", () => {
    expect(nodePorts(FILTER, { condition: "x" })).toBe(FILTER);
  });
});

describe("catalog.portsOf", () => {
  it("reads the node's own params", () => {
    const catalog = createCatalog([ROUTE, FILTER], () => "process", statuses);
    const node = { id: "r", data: { operator: "route", params: { conditions: [{ name: "x" }] } } };
    expect(names(catalog.portsOf(node))).toEqual(["x", "otherwise"]);
    expect(names(catalog.portsOf({ data: { operator: "nope" } }))).toEqual(["out"]);
  });
});

describe("a route card's stray ports", () => {
  it("sit on rows of their own below its ports, not on its last port", async () => {
    const { cardGeometry } = await import("../canvas/nodes/geometry.js");
    const ports = nodePorts(ROUTE, { conditions: [{ name: "a" }, { name: "fr" }] });
    const plain = cardGeometry(ports, false);
    const withStray = cardGeometry(ports, false, { inputs: [], outputs: ["french"] });
    const y = (geometry, id) => geometry.handles.find((handle) => handle.id === id).y;
    expect(withStray.height).toBeGreaterThan(plain.height);
    expect(y(withStray, "french")).toBeGreaterThan(y(withStray, "otherwise"));
    expect(y(withStray, "otherwise")).toBe(y(plain, "otherwise"));
  });
});

describe("palette search", () => {
  const PIVOT = {
    name: "pivot",
    kind: "process",
    title: "Pivot",
    description: "Turn the values of a column into columns.",
    keywords: ["crosstab", "long to wide"],
  };
  const found = (search) =>
    paletteGroups([PIVOT, { ...FILTER, title: "Filter", description: "Keep rows." }], search)
      .flatMap((group) => group.items)
      .map((item) => item.name);

  it("finds an operator by one of its keywords, every word having to match", () => {
    expect(found("crosstab")).toEqual(["pivot"]);
    expect(found("Long  WIDE")).toEqual(["pivot"]);
    expect(found("crosstab rows")).toEqual([]);
  });

  it("finds operators that declare no keywords by their title and description", () => {
    expect(found("keep")).toEqual(["filter"]);
  });

  it("puts operators whose title or name has the words before those that mention them", () => {
    const JOIN = { name: "join", kind: "process", title: "Join", description: "Match rows." };
    const BROADCAST = {
      name: "broadcast",
      kind: "process",
      title: "Broadcast a value",
      description: "Add a total to every row.",
      keywords: ["cross join"],
    };
    const LATERAL = { ...JOIN, name: "lateral", title: "Lateral", description: "A join." };
    const names = paletteGroups([LATERAL, BROADCAST, JOIN], "join")
      .flatMap((group) => group.items)
      .map((item) => item.name);
    expect(names).toEqual(["join", "broadcast", "lateral"]);
  });
});
