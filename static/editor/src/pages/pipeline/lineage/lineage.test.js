import { describe, expect, it } from "vitest";
import {
  inputLines,
  lineageClass,
  lineageInAddress,
  lineageMarks,
  lineageQuery,
  markPathEdges,
  pathInputs,
  traceableColumns,
  upstreamLines,
} from "./lineage.js";

const selected = {
  column: { node: "write", port: "in", column: "age" },
  columns: [],
  nodes: ["write", "adults", "users"],
  edges: [
    { source: "adults", source_port: "out", target: "write" },
    { source: "users", source_port: "out", target: "adults" },
  ],
  conditions: [],
  origins: [{ node: "users", column: "age" }],
};

describe("a column's lineage on the canvas", () => {
  it("marks the nodes of the path and dims the others", () => {
    const marks = lineageMarks(selected);
    expect(lineageClass(marks, "adults")).toBe(" is-lineage");
    expect(lineageClass(marks, "other")).toBe(" is-off-lineage");
    expect(lineageClass(null, "adults")).toBe("");
  });

  it("marks only the edges the column crossed, by their ports", () => {
    const marks = lineageMarks(selected);
    const edges = [
      { id: "e1", source: "users", sourceHandle: "out", target: "adults" },
      { id: "e2", source: "users", sourceHandle: "out", target: "elsewhere" },
      { id: "e3", source: "adults", sourceHandle: "out", target: "write", className: "x" },
    ];
    const marked = markPathEdges(edges, marks);
    expect(marked.map((edge) => edge.className)).toEqual([
      "pw-edge-lineage",
      "pw-edge-off-lineage",
      "x pw-edge-lineage",
    ]);
    expect(markPathEdges(edges, null)).toBe(edges);
  });

  it("offers an output node the columns it writes, others their outputs' columns", () => {
    const column = (name) => ({ name, type: "string", nullable: false });
    expect(traceableColumns({ inputs: { in: [column("a")] }, outputs: {} })).toEqual(["a"]);
    expect(
      traceableColumns({
        inputs: {},
        outputs: { valid: [column("a")], invalid: [column("a"), column("why")] },
      }),
    ).toEqual(["a", "why"]);
    expect(traceableColumns(null)).toEqual([]);
  });

  it("names each input with its file and the columns that reach", () => {
    const nodes = { users: { source: "demo/users.csv" } };
    expect(inputLines(pathInputs(selected, nodes))).toEqual(["users (demo/users.csv): age"]);
    expect(lineageQuery("out.csv", "total eur")).toBe("?node=out.csv&column=total+eur");
  });
});

describe("lineage across pipelines", () => {
  const upstream = {
    hops: [
      {
        pipeline: 4,
        name: "Adults",
        via: "out/adults.csv",
        reader: 5,
        input: "adults_in",
        output: "write",
        column: "total:eur",
        depth: 1,
        path: selected,
      },
    ],
    stops: [],
  };

  it("says where each hop comes from and links to its pipeline with the column lit", () => {
    const [line] = upstreamLines(upstream);
    expect([line.input, line.via]).toEqual(["adults_in", "out/adults.csv"]);
    expect(line.from).toBe("Adults › write › total:eur");
    expect(line.href).toBe("/pipelines/4/?lineage_node=write&lineage_column=total%3Aeur");
    expect(upstreamLines(undefined)).toEqual([]);
  });

  it("reads the column to light from the address its link makes", () => {
    const search = upstreamLines(upstream)[0].href.split("/?")[1];
    expect(lineageInAddress(`?${search}`)).toEqual({ node: "write", column: "total:eur" });
    expect(lineageInAddress("?lineage_node=write")).toBeNull();
    expect(lineageInAddress("")).toBeNull();
  });
});
