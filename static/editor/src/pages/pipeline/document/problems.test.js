import { describe, expect, it } from "vitest";
import {
  describeProblem,
  messagesAtSetting,
  otherSettingProblems,
  refusalDetails,
} from "./problems.js";

describe("problems in lists", () => {
  const titled = {
    node: "group",
    field: "params.group_by.0",
    field_title: "Group by, item 1",
    message: "Group by, item 1: must not be empty",
  };

  it("do not repeat a titled field that the message names already", () => {
    expect(describeProblem(titled, true)).toBe("group: Group by, item 1: must not be empty");
    expect(describeProblem({ node: "a", field: "inputs.in", message: "not connected" }, true)).toBe(
      "a.inputs.in: not connected",
    );
  });

  it("list nothing under a refusal of one problem, which its message states", () => {
    expect(refusalDetails({ problems: [titled] })).toEqual([]);
    expect(refusalDetails({ problems: [titled, titled] })).toHaveLength(2);
    expect(refusalDetails({})).toEqual([]);
  });
});

describe("problems at pipeline settings", () => {
  const problems = [
    {
      node: null,
      field: "config.max_concurrency",
      message: "Settings, Concurrency: must be at least 1",
    },
    {
      node: null,
      field: "config.parameters.min_age",
      message: "min_age: must be a whole number where filter_1 uses it",
    },
    {
      node: null,
      field: "config.parameters.1bad.[key]",
      message: "Settings, Parameters, the name '1bad': must match the pattern",
    },
    { node: null, field: "config.bogus", message: "Settings, bogus: unknown field" },
    { node: null, field: "name", message: "Name: required" },
  ];

  it("are found at the setting their field names, or inside it", () => {
    expect(messagesAtSetting(problems, "max_concurrency")).toEqual([
      "Settings, Concurrency: must be at least 1",
    ]);
    expect(messagesAtSetting(problems, "parameters.min_age")).toEqual([
      "min_age: must be a whole number where filter_1 uses it",
    ]);
    expect(messagesAtSetting(problems, "parameters.1bad")).toHaveLength(1);
    expect(messagesAtSetting(problems, "parameters.min")).toEqual([]);
    expect(messagesAtSetting(problems, "timeout_s")).toEqual([]);
  });

  it("that no shown setting holds are listed apart, and other fields are not settings", () => {
    const others = otherSettingProblems(problems, ["max_concurrency", "parameters.min_age"]);
    expect(others.map((problem) => problem.field)).toEqual([
      "config.parameters.1bad.[key]",
      "config.bogus",
    ]);
  });
});
