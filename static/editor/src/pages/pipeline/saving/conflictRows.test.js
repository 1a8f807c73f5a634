import { describe, expect, it } from "vitest";
import { conflictRows } from "./conflictRows.js";

const node = (params, extra = {}) => ({
  id: "adults",
  operator: "filter",
  label: "Adults",
  params,
  ...extra,
});

describe("conflictRows", () => {
  it("lists only the fields where their node and mine differ", () => {
    const theirs = { nodes: [node({ condition: "age > 30", keep: true })] };
    const mine = { nodes: [node({ condition: "age > 21", keep: true })] };
    const conflicts = [{ kind: "node", id: "adults", label: "Adults", reason: "changed" }];

    expect(conflictRows(conflicts, theirs, mine)).toEqual([
      {
        id: "adults",
        label: "Adults",
        reason: "changed",
        rows: [{ field: "condition", theirs: "age > 30", mine: "age > 21" }],
      },
    ]);
  });

  it("shows data checks that differ", () => {
    const check = (column) => [{ check: "not_null", column }];
    const theirs = { nodes: [node({}, { expect: check("age") })] };
    const mine = { nodes: [node({}, { expect: check("id") })] };
    const conflicts = [{ kind: "node", id: "adults", label: "Adults", reason: "changed" }];
    const [entry] = conflictRows(conflicts, theirs, mine);
    expect(entry.rows.map((row) => row.field)).toEqual(["expect"]);
    expect(entry.rows[0].mine).toContain('"id"');
  });

  it("says which side removed a node", () => {
    const conflicts = [{ kind: "node", id: "adults", label: "Adults", reason: "removed" }];
    const [entry] = conflictRows(conflicts, { nodes: [] }, { nodes: [node({})] });
    expect(entry.rows).toEqual([{ field: "node", theirs: "removed", mine: "kept" }]);
  });

  it("reads a pipeline setting by its path", () => {
    const conflicts = [{ kind: "pipeline", id: "config.parameters.min_age", label: "x" }];
    const theirs = { config: { parameters: { min_age: 30 } } };
    const mine = { config: { parameters: { min_age: 21 } } };
    const [entry] = conflictRows(conflicts, theirs, mine);
    expect(entry.rows).toEqual([{ field: "config.parameters.min_age", theirs: "30", mine: "21" }]);
  });
});
