import { describe, expect, it } from "vitest";
import { generalProblems, messagesAtField, portProblem } from "../src/model/problems.js";

describe("server problems at the field they name", () => {
  const schema = { properties: { condition: {} } };
  const problems = [
    { node: "f", field: "retries", message: "must be at least 0" },
    { node: "f", field: "timeout_s", message: "must be above 0" },
    { node: "f", field: "label", message: "too long" },
    { node: "f", field: "inputs.in", message: "input port 'in' is not connected" },
    { node: "f", field: "params.condition", message: "unknown column x" },
    { node: "f", field: null, message: "unknown operator" },
  ];

  it("puts retries, timeout and label problems at their inputs, not in the general list", () => {
    expect(messagesAtField(problems, "retries")).toEqual(["must be at least 0"]);
    expect(messagesAtField(problems, "timeout_s")).toEqual(["must be above 0"]);
    expect(messagesAtField(problems, "label")).toEqual(["too long"]);
    expect(generalProblems(problems, schema).map((problem) => problem.field)).toEqual(["inputs.in", null]);
  });

  it("finds the problem of a port for its handle", () => {
    expect(portProblem(problems, "inputs", "in").message).toMatch(/not connected/);
    expect(portProblem(problems, "outputs", "in")).toBeUndefined();
  });
});
