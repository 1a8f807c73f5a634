import { describe, expect, it } from "vitest";
import { problemPlace, runLabel, runProblems } from "./runProblems.js";

const nodes = [
  { id: "read", data: { label: "" } },
  { id: "adults", data: { label: "Adults only" } },
];

describe("runProblems", () => {
  it("lists the pipeline's problems first, then each node's in the canvas' order, with labels", () => {
    const byNode = {
      adults: [{ node: "adults", field: "params.condition", message: "unknown column 'agee'" }],
      read: [{ node: "read", field: null, message: "input file 'x.csv' not found" }],
    };
    const pipeline = [{ node: null, field: "config.parameters", message: "bad" }];

    const listed = runProblems(byNode, pipeline, nodes);

    expect(listed.map((problem) => [problem.node, problem.label])).toEqual([
      [null, null],
      ["read", "read"],
      ["adults", "Adults only"],
    ]);
  });

  it("leaves out a database out of reach: the run connects again, with its retries", () => {
    const byNode = {
      read: [{ node: "read", code: "unreachable", message: "cannot connect to 'shop'" }],
    };
    expect(runProblems(byNode, [], nodes)).toEqual([]);
  });

  it("skips the problems of nodes the canvas no longer has", () => {
    expect(runProblems({ gone: [{ node: "gone", message: "x" }] }, [], nodes)).toEqual([]);
  });
});

describe("runLabel", () => {
  it("counts the problems on the Run button", () => {
    expect(runLabel(0)).toBe("Run");
    expect(runLabel(1)).toBe("Run · 1 problem");
    expect(runLabel(2)).toBe("Run · 2 problems");
  });
});

describe("problemPlace", () => {
  it("names the label and the field unless the message starts with the field's title", () => {
    expect(problemPlace({ label: "Adults", field: "params.condition" })).toBe(
      "Adults · params.condition",
    );
    expect(problemPlace({ label: "Adults", field: "params.x", field_title: "X" })).toBe("Adults");
    expect(problemPlace({ label: null, field: "config.parameters" })).toBe(
      "Pipeline · config.parameters",
    );
  });
});
