import { describe, expect, it } from "vitest";
import {
  foldedObject,
  defaultValue,
  dictFromRows,
  enumOptions,
  fieldKind,
  parseJsonish,
  parseNumber,
  parseScalar,
  resolveSchema,
  rowsFromDict,
  setIn,
  splitNullable,
  unionVariants,
} from "./schemaForm.js";
import { groupProblems, messagesAt, paramsPath } from "../document/problems.js";

const TRANSFORM = {
  $defs: {
    Mapping: {
      properties: {
        target: { type: "string", minLength: 1, title: "Column" },
        expression: { type: "string", format: "expression", title: "Expression" },
        type: {
          anyOf: [{ enum: ["string", "integer"], type: "string" }, { type: "null" }],
          default: null,
        },
      },
      required: ["target", "expression"],
      type: "object",
    },
  },
  properties: {
    mappings: { items: { $ref: "#/$defs/Mapping" }, type: "array", minItems: 1 },
    keep_other_columns: { type: "boolean", default: true },
  },
  required: ["mappings"],
  type: "object",
};
const VALIDATE = {
  $defs: {
    NotNullRule: {
      properties: { rule: { const: "not_null", type: "string" }, column: { type: "string" } },
      required: ["rule", "column"],
      title: "Not null",
      type: "object",
    },
    RangeRule: {
      properties: {
        rule: { const: "range", type: "string" },
        column: { type: "string" },
        min: { anyOf: [{ type: "number" }, { type: "null" }], default: null },
      },
      required: ["rule", "column"],
      type: "object",
    },
  },
  properties: {
    rules: {
      items: {
        discriminator: { propertyName: "rule", mapping: {} },
        oneOf: [{ $ref: "#/$defs/NotNullRule" }, { $ref: "#/$defs/RangeRule" }],
      },
      type: "array",
    },
  },
};

describe("field kinds", () => {
  const kind = (schema, root = schema) => fieldKind(schema, root);
  it("picks a widget for each kind of field", () => {
    expect(kind({ type: "string" })).toBe("text");
    expect(kind({ type: "string", format: "expression" })).toBe("expression");
    expect(kind({ type: "string", format: "sql" })).toBe("sql");
    expect(kind({ type: "string", format: "path" })).toBe("path");
    expect(kind({ type: "string", format: "connection" })).toBe("connection");
    expect(kind({ type: "integer" })).toBe("integer");
    expect(kind({ type: "number" })).toBe("number");
    expect(kind({ type: "boolean" })).toBe("boolean");
    expect(kind({ type: "string", enum: ["a", "b"] })).toBe("enum");
    expect(kind({ const: "x", type: "string" })).toBe("enum");
    expect(kind({ anyOf: [{ const: "a" }, { const: "b" }] })).toBe("enum");
    expect(kind({ type: "array", items: { type: "string" } })).toBe("stringList");
    expect(kind({ anyOf: [{ type: "array", items: { type: "string" } }, { type: "null" }] })).toBe(
      "stringList",
    );
    expect(
      kind({ type: "array", items: { anyOf: [{ type: "string" }, { type: "integer" }] } }),
    ).toBe("scalarList");
    expect(
      kind({ type: "object", additionalProperties: { type: "string", enum: ["integer"] } }),
    ).toBe("dict");
    expect(kind({ type: "object", patternProperties: { "^a$": { type: "string" } } })).toBe("dict");
    expect(kind({ anyOf: [{ type: "integer" }, { type: "string" }] })).toBe("scalar");
    expect(kind({ anyOf: [{ type: "integer", minimum: 0 }, { type: "null" }] })).toBe("integer");
  });
  it("resolves $ref into $defs for lists of objects and unions", () => {
    expect(fieldKind(TRANSFORM.properties.mappings, TRANSFORM)).toBe("objectList");
    expect(fieldKind(VALIDATE.properties.rules, VALIDATE)).toBe("unionList");
  });
});

describe("schema helpers", () => {
  it("follows a $ref and keeps sibling keys", () => {
    const resolved = resolveSchema({ $ref: "#/$defs/Mapping", description: "here" }, TRANSFORM);
    expect(resolved.properties.target.title).toBe("Column");
    expect(resolved.description).toBe("here");
  });
  it("unwraps an optional field and marks it nullable", () => {
    const { schema, nullable } = splitNullable(TRANSFORM.$defs.Mapping.properties.type, TRANSFORM);
    expect(nullable).toBe(true);
    expect(schema.enum).toEqual(["string", "integer"]);
    expect(schema.default).toBeNull();
  });
  it("lists enum values", () => {
    expect(enumOptions({ anyOf: [{ const: "a" }, { enum: ["b", "c"] }] }, {})).toEqual([
      "a",
      "b",
      "c",
    ]);
    expect(enumOptions({ type: "string" }, {})).toBeNull();
  });
  it("finds the variants of a discriminated union", () => {
    const union = unionVariants(VALIDATE.properties.rules.items, VALIDATE);
    expect(union.prop).toBe("rule");
    expect(union.variants.map((variant) => variant.tag)).toEqual(["not_null", "range"]);
  });
  it("starts new rows with the required fields", () => {
    expect(defaultValue(TRANSFORM.properties.mappings.items, TRANSFORM)).toEqual({
      target: "",
      expression: "",
    });
    expect(defaultValue(VALIDATE.properties.rules.items, VALIDATE)).toEqual({
      rule: "not_null",
      column: "",
    });
    expect(defaultValue({ type: "boolean", default: true }, {})).toBe(true);
  });
});

describe("values", () => {
  it("sets nested values without changing the original", () => {
    const params = { mappings: [{ target: "a", expression: "1" }] };
    const next = setIn(params, ["mappings", 0, "expression"], "2");
    expect(next.mappings[0].expression).toBe("2");
    expect(params.mappings[0].expression).toBe("1");
  });
  it("removes a key set to undefined (the default applies again)", () => {
    expect(setIn({ a: 1, b: 2 }, ["a"], undefined)).toEqual({ b: 2 });
  });
  it("parses scalars typed as text", () => {
    expect(parseScalar("12")).toBe(12);
    expect(parseScalar("1.5")).toBe(1.5);
    expect(parseScalar("true")).toBe(true);
    expect(parseScalar("FR")).toBe("FR");
    expect(parseScalar("")).toBeUndefined();
  });
  it("parses numbers, empty meaning unset", () => {
    expect(parseNumber("3.7", true)).toBe(3);
    expect(parseNumber("3.7", false)).toBe(3.7);
    expect(parseNumber("", false)).toBeUndefined();
  });
  it("reads parameter values as JSON when they parse", () => {
    expect(parseJsonish("18")).toBe(18);
    expect(parseJsonish("[1, 2]")).toEqual([1, 2]);
    expect(parseJsonish("FR")).toBe("FR");
  });
  it("edits dicts as rows, dropping rows without a name", () => {
    const rows = rowsFromDict({ age: "integer", name: "string" });
    expect(rows).toEqual([
      { key: "age", value: "integer" },
      { key: "name", value: "string" },
    ]);
    expect(dictFromRows([...rows, { key: "", value: "float" }])).toEqual({
      age: "integer",
      name: "string",
    });
  });
});

describe("problems at fields", () => {
  const problems = [
    {
      code: "invalid_params",
      node: "t",
      field: "params.mappings.0.expression",
      message: "unknown column x",
    },
    { code: "schema", node: "t", field: "params.mappings[1].expression", message: "bad token" },
    { code: "missing_input", node: "t", field: "inputs.in", message: "connect it" },
    { code: "cycle", node: null, field: null, message: "a cycle" },
  ];
  it("reads both pydantic and engine field paths", () => {
    expect(paramsPath("params.mappings[1].expression")).toBe("mappings.1.expression");
    expect(paramsPath("params.mappings.0.expression")).toBe("mappings.0.expression");
    expect(paramsPath("inputs.in")).toBeNull();
  });
  it("finds the messages of one field", () => {
    expect(messagesAt(problems, ["mappings.1.expression"])).toEqual(["bad token"]);
  });
  it("groups problems by node, the rest for the pipeline", () => {
    const grouped = groupProblems(problems);
    expect(grouped.byNode.t).toHaveLength(3);
    expect(grouped.pipeline.map((problem) => problem.message)).toEqual(["a cycle"]);
  });
});

describe("optional object fields", () => {
  it("are folded while unset, so that their own required fields do not show", () => {
    expect(foldedObject(undefined, false, true)).toBe(true); // incremental: none
    expect(foldedObject(null, false, false)).toBe(true);
    expect(foldedObject({ mode: "watermark" }, false, true)).toBe(false);
    expect(foldedObject(undefined, true, false)).toBe(false); // a required object shows
  });
});
