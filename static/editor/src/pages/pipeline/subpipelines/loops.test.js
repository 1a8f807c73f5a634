import { describe, expect, it } from "vitest";

import { aggregateRun, formSchema } from "./subpipelines.js";
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
    expect(aggregateRun(nodes, "each", FINAL).inlined.nodes).toBe("1/2 iterations");
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
});
