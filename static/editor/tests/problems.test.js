import { describe, expect, it } from "vitest";
import { describeProblem, refusalDetails } from "../src/model/problems.js";

describe("problems in lists", () => {
  const titled = { node: "group", field: "params.group_by.0", field_title: "Group by, item 1", message: "Group by, item 1: must not be empty" };

  it("do not repeat a titled field that the message names already", () => {
    expect(describeProblem(titled, true)).toBe("group: Group by, item 1: must not be empty");
    expect(describeProblem({ node: "a", field: "inputs.in", message: "not connected" }, true)).toBe("a.inputs.in: not connected");
  });

  it("list nothing under a refusal of one problem, which its message states", () => {
    expect(refusalDetails({ problems: [titled] })).toEqual([]);
    expect(refusalDetails({ problems: [titled, titled] })).toHaveLength(2);
    expect(refusalDetails({})).toEqual([]);
  });
});
