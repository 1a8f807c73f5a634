import { describe, expect, it } from "vitest";
import {
  itemReference,
  keyReference,
  matchingColumns,
  portColumns,
  portReference,
} from "./columnFields.js";
import { columnReference, completionOptions, problemRanges } from "./expressionHelp.js";
import { summaryText } from "../canvas/nodes/summary.js";

const AGE = { name: "age", type: "integer", nullable: false };
const NAME = { name: "name", type: "string", nullable: true };

describe("column fields", () => {
  it("reads the port a column field, a list's items and a dict's names refer to", () => {
    expect(portReference({ type: "string", format: "column", "x-port": "left" })).toEqual({
      format: "column",
      port: "left",
    });
    expect(
      portReference({
        anyOf: [{ type: "string", format: "column", "x-port": "in" }, { type: "null" }],
      }),
    ).toEqual({ format: "column", port: "in" });
    expect(
      itemReference({
        type: "array",
        items: { type: "string", format: "column", "x-port": "right" },
      }),
    ).toEqual({ format: "column", port: "right" });
    expect(
      keyReference({ type: "object", propertyNames: { format: "column", "x-port": "in" } }),
    ).toEqual({ format: "column", port: "in" });
    expect(portReference({ type: "string" })).toBeNull();
  });

  it("lists a port's columns once, also over several tables, and null while unknown", () => {
    expect(portColumns({ inputs: { in: [AGE, NAME] } }, "in")).toEqual([AGE, NAME]);
    expect(portColumns({ inputs: { in: [[AGE], [AGE, NAME], null] } }, "in")).toEqual([AGE, NAME]);
    expect(portColumns({ inputs: { in: null } }, "in")).toBeNull();
    expect(portColumns(undefined, "in")).toBeNull();
  });

  it("lists the columns of a view the operator gives, as a join's joined row", () => {
    const schemas = { inputs: { left: [AGE], right: [AGE] }, views: { joined: [AGE, NAME] } };
    expect(portColumns(schemas, "joined")).toEqual([AGE, NAME]);
  });

  it("finds columns by any part of their name, those starting with it first", () => {
    const columns = [{ name: "page" }, { name: "age_group" }, { name: "id" }];
    expect(matchingColumns(columns, "AGE").map((column) => column.name)).toEqual([
      "age_group",
      "page",
    ]);
    expect(matchingColumns(columns, "")).toBe(columns);
  });
});

describe("expression help", () => {
  const language = {
    functions: [{ name: "upper", usage: "upper(text)", returns: "string", help: "Upper case." }],
  };

  it("offers columns with their types, then functions with usage and help, then keywords", () => {
    const options = completionOptions([AGE, { name: "unit price", type: "float" }], language);
    expect(options[0]).toMatchObject({
      label: "age",
      apply: "age",
      type: "variable",
      detail: "integer",
    });
    expect(options[1]).toMatchObject({
      label: "unit price",
      apply: "`unit price`",
      detail: "float",
    });
    expect(options[2]).toMatchObject({
      label: "upper",
      apply: "upper(",
      type: "function",
      detail: "upper(text) → string",
      info: "Upper case.",
    });
    expect(options.some((option) => option.label === "between" && option.type === "keyword")).toBe(
      true,
    );
  });

  it("completes and backticks the reserved words the server serves, not only the built-in ones", () => {
    const served = { ...language, keywords: ["and", "case", "when", "like"] };
    const options = completionOptions([{ name: "case", type: "string" }], served);
    expect(options[0]).toMatchObject({ label: "case", apply: "`case`" });
    const keywords = options.filter((option) => option.type === "keyword").map((o) => o.label);
    expect(keywords).toEqual(["and", "case", "when", "like"]);
  });

  it("offers the language's one-word operators that are not functions as keywords", () => {
    const dated = {
      functions: [{ name: "date", usage: "date(value)", returns: "date", help: "A date." }],
      operators: [
        { name: "interval", usage: "d + interval '1' day", help: "A span." },
        { name: "date", usage: "date '2024-01-31'", help: "A date literal." },
        { name: "is null", usage: "a is null", help: "Missing." },
      ],
    };
    const keywords = completionOptions([], dated)
      .filter((option) => option.type === "keyword")
      .map((option) => option.label);
    expect(keywords).toContain("interval");
    expect(keywords).not.toContain("date");
    expect(keywords).not.toContain("is null");
  });

  it("quotes the column names the language cannot read bare", () => {
    expect(columnReference("total_2")).toBe("total_2");
    expect(columnReference("and")).toBe("`and`");
    expect(columnReference("end")).toBe("`end`");
    expect(columnReference("a`b")).toBe("`a\\`b`");
  });

  it("turns a problem's line and columns into a range of the text", () => {
    const text = "age > 1 and\n  upper(agee) = 'X'";
    const [range] = problemRanges(
      [{ line: 2, column: 9, end_column: 13, message: "unknown column 'agee'" }],
      text,
    );
    expect(text.slice(range.from, range.to)).toBe("agee");
    expect(range.message).toBe("unknown column 'agee'");
  });

  it("marks a character for a problem without an end, and skips those without a place", () => {
    const [range] = problemRanges(
      [{ line: 1, column: 8, message: "unexpected end" }, { message: "elsewhere" }],
      "age >= ",
    );
    expect(range.to - range.from).toBe(1);
    expect(problemRanges([{ line: 9, column: 1, message: "beyond" }], "a")).toEqual([]);
  });
});

describe("card summaries", () => {
  it("fills a template with params: lists joined, parts of items, mappings as key → value", () => {
    expect(summaryText("{path}", { path: "people.csv" })).toBe("people.csv");
    expect(
      summaryText("[by {group_by}: ]{aggregations.function}", {
        group_by: ["country", "year"],
        aggregations: [{ function: "sum" }, { function: "size" }],
      }),
    ).toBe("by country, year: sum, size");
    expect(
      summaryText("{how}: {left_on} = {right_on}", {
        how: "left",
        left_on: ["id"],
        right_on: ["user_id"],
      }),
    ).toBe("left: id = user_id");
    expect(summaryText("{types}", { types: { age: "integer", born: "date" } })).toBe(
      "age → integer, born → date",
    );
  });

  it("drops a section while a param in it is empty, and says nothing when nothing is set", () => {
    expect(
      summaryText("[by {group_by}: ]{aggregations.function}", {
        group_by: [],
        aggregations: [{ function: "size" }],
      }),
    ).toBe("size");
    expect(summaryText("{condition}", {})).toBe("");
    expect(summaryText("{how}: {left_on} = {right_on}", {})).toBe("");
    expect(summaryText("", { path: "x" })).toBe("");
  });

  it("reads a param left unset as its default, once the node has any param set", () => {
    const schema = { properties: { function: { default: "sum" }, index: { default: [] } } };
    const pivot = "{function} of {value} by {column}[ per {index}]";
    expect(summaryText(pivot, { value: "amount", column: "month" }, schema)).toBe(
      "sum of amount by month",
    );
    expect(summaryText(pivot, {}, schema)).toBe("");
    expect(summaryText("stacked by column name", {}, schema)).toBe("stacked by column name");
  });

  it("shows a join's default kind when the kind is left unset or cleared", () => {
    const schema = { properties: { how: { default: "inner" } } };
    const join = "{how}: {left_on} = {right_on}";
    for (const how of [undefined, null, ""]) {
      expect(summaryText(join, { how, left_on: ["id"], right_on: ["user_id"] }, schema)).toBe(
        "inner: id = user_id",
      );
    }
  });
});
