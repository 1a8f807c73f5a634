import { describe, expect, it } from "vitest";

import { aggregateRun, formSchema, ownIterations } from "./subpipelines.js";
import { portColumns } from "../form/columnFields.js";
import { nodePorts } from "../document/catalog.js";

const FINAL = new Set(["succeeded", "failed", "skipped", "cancelled", "timed_out"]);

describe("for_each on the canvas", () => {
  it("counts a loop's ended iterations on its card", () => {
    const nodes = {
      each__0__read: { status: "succeeded" },
      each__0__keep: { status: "succeeded" },
      each__1__read: { status: "succeeded" },
      each__1__keep: { status: "running" },
      each__rows: { status: "pending" },
    };
    expect(aggregateRun(nodes, "each", FINAL).inlined.nodes).toBe("1/2 runs");
  });

  it("draws a loop's ports from its params and leaves its sub-pipeline fields out of the form", () => {
    const entry = { name: "for_each", inputs: [], outputs: [] };
    expect(nodePorts(entry, { outputs: ["rows"] }).outputs.map((p) => p.name)).toEqual(["rows"]);
    const schema = {
      properties: { pipeline: {}, parameters: {}, pattern: {}, max_iterations: {} },
      required: ["pipeline", "pattern", "max_iterations"],
    };
    const shown = formSchema({ name: "for_each", params_schema: schema });
    expect(Object.keys(shown.properties)).toEqual(["pattern", "max_iterations"]);
    expect(shown.required).toEqual(["pattern", "max_iterations"]);
  });

  it("shows only the fields of what the loop goes over", () => {
    const schema = {
      properties: Object.fromEntries(
        ["pipeline", "over", "pattern", "columns", "group_by", "chunk_rows", "parameter"].map(
          (name) => [name, {}],
        ),
      ),
      required: ["pipeline", "max_iterations"],
    };
    const fields = (params) =>
      Object.keys(formSchema({ name: "for_each", params_schema: schema }, params).properties);
    expect(fields({})).toEqual(["over", "pattern", "columns", "parameter"]);
    expect(fields({ over: "groups" })).toEqual(["over", "group_by", "parameter"]);
    expect(fields({ over: "chunks" })).toEqual(["over", "chunk_rows", "parameter"]);
  });

  it("counts the iterations of a loop that runs them itself, live then once it ended", () => {
    expect(ownIterations({ status: "running", iterations: [2, 5] })).toBe("2/5 runs");
    expect(ownIterations({ status: "succeeded", metrics: { iterations: 3 } })).toBe("3/3 runs");
    expect(ownIterations({ status: "succeeded", metrics: { rows_out: 3 } })).toBeNull();
  });

  it("offers a loop's group columns from its input, whatever the port's name", () => {
    const schemas = { inputs: { rows: [{ name: "country", type: "string" }] } };
    expect(portColumns(schemas, "*").map((column) => column.name)).toEqual(["country"]);
  });
});
