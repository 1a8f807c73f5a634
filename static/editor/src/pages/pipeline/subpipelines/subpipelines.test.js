import { describe, expect, it } from "vitest";
import { staleNodes } from "../runs/staleNodes.js";
import {
  aggregateRun,
  chosenSubpipeline,
  idBase,
  newParams,
  parameterKind,
  parsedParameter,
  revisionOptions,
  subpipelineMark,
  subpipelineDrag,
  subpipelinePorts,
} from "./subpipelines.js";

const ENTRY = {
  id: 7,
  name: "Clean orders",
  revision: 4,
  revisions: [4, 2],
  parameters: { min: 10 },
  inputs: [{ name: "orders", columns: [] }],
  outputs: [{ name: "kept" }],
};
const FINAL = new Set(["succeeded", "failed", "skipped", "cancelled", "timed_out"]);

describe("sub-pipelines on the canvas", () => {
  it("drags a pipeline by id and makes a node of its ports at the latest revision", () => {
    expect(chosenSubpipeline(subpipelineDrag(ENTRY))).toEqual({
      id: "clean_orders",
      params: newParams(ENTRY),
    });
    expect(chosenSubpipeline("filter")).toBeNull();
    expect(newParams(ENTRY)).toEqual({
      pipeline: 7,
      revision: "latest",
      parameters: {},
      inputs: ["orders"],
      outputs: ["kept"],
    });
    expect(idBase(ENTRY)).toBe("clean_orders");
  });

  it("draws the ports its params name", () => {
    const ports = subpipelinePorts({ name: "subpipeline" }, newParams(ENTRY));
    expect(ports.inputs.map((port) => port.name)).toEqual(["orders"]);
    expect(ports.outputs.map((port) => port.name)).toEqual(["kept"]);
  });

  it("offers latest with its number, then the kept revisions", () => {
    expect(revisionOptions(ENTRY).map((option) => option.label)).toEqual([
      "latest (revision 4)",
      "revision 4",
      "revision 2",
    ]);
  });

  it("edits parameters by their default's type", () => {
    expect(parameterKind(10)).toBe("integer");
    expect(parameterKind(0.5)).toBe("number");
    expect(parameterKind(true)).toBe("boolean");
    expect(parsedParameter("integer", "25")).toBe(25);
    expect(parsedParameter("integer", "many")).toBe("many");
    expect(parsedParameter("json", "[1, 2]")).toEqual([1, 2]);
  });

  it("adds up the inlined nodes' runs on the outer card", () => {
    const nodes = {
      read: { status: "succeeded", metrics: { rows_out: 3 } },
      clean__big: { status: "succeeded", metrics: { rows_out: 2 } },
      clean__sort: { status: "running", metrics: {} },
    };
    expect(aggregateRun(nodes, "clean", FINAL)).toMatchObject({
      status: "running",
      inlined: { nodes: "1/2 nodes", rows: "≤ 2 rows" },
    });
    nodes.clean__sort = { status: "failed", error: "boom" };
    expect(aggregateRun(nodes, "clean", FINAL)).toMatchObject({ status: "failed", error: "boom" });
    expect(aggregateRun(nodes, "read", FINAL)).toBeNull();
  });

  it("leaves a sub-pipeline node and what it feeds fresh after a run of its inlined nodes", () => {
    const sub = { id: "clean", operator: "subpipeline", params: newParams(ENTRY) };
    const write = { id: "write", operator: "csv_output", params: { path: "o.csv" } };
    const current = {
      nodes: [sub, write],
      edges: [{ source: "clean", source_port: "kept", target: "write", target_port: "in" }],
    };
    const ran = {
      nodes: [{ id: "clean__big", operator: "filter", params: {} }, write],
      edges: [{ source: "clean__big", source_port: "out", target: "write", target_port: "in" }],
    };
    expect([...staleNodes(ran, current)]).toEqual([]);
    expect([...staleNodes({ nodes: [write], edges: [] }, current)].sort()).toEqual([
      "clean",
      "write",
    ]);
  });

  it("marks the sub-pipeline node in the plan view as its inlined nodes are", () => {
    const byNode = { clean__big: { kind: "segment", label: "duckdb", title: "segment:1" } };
    const entry = { pipeline: "Clean orders", revision: 4, nodes: ["clean__big"] };
    expect(subpipelineMark(byNode, entry)).toMatchObject({
      label: "duckdb",
      title: "'Clean orders' @ revision 4 inlined as clean__big: segment:1",
    });
    byNode.clean__sort = { kind: "pandas", label: "pandas", title: "pandas" };
    entry.nodes.push("clean__sort");
    expect(subpipelineMark(byNode, entry).label).toBe("mixed");
  });
});
