import { describe, expect, it } from "vitest";
import { canvasToDocument, copyName, documentToCanvas } from "./document.js";

const SERVER_ANSWER = {
  format: "pipewright.pipeline",
  version: 2,
  name: "Seed ETL",
  description: "Adults' spending",
  config: {
    max_concurrency: null,
    stop_on_error: true,
    retries: 0,
    retry_delay_s: 1.0,
    timeout_s: null,
    log_level: "info",
    parameters: { min_age: 18 },
    backend: "duckdb",
    cache: false,
  },
  nodes: [
    {
      id: "adults",
      operator: "filter",
      label: "Adults",
      params: { condition: "age > ${min_age}" },
      position: { x: 260, y: 0 },
      retries: null,
      timeout_s: null,
    },
    {
      id: "users",
      operator: "csv_input",
      label: "",
      params: { path: "demo/users.csv" },
      position: { x: 0, y: 0 },
      retries: 2,
      timeout_s: 30,
    },
    {
      id: "with_names",
      operator: "join",
      label: "",
      params: { left_on: ["country"], right_on: ["country"] },
      position: { x: 500, y: 60 },
      retries: null,
      timeout_s: null,
    },
  ],
  edges: [
    { source: "adults", source_port: "out", target: "with_names", target_port: "left" },
    { source: "users", source_port: "out", target: "adults", target_port: "in" },
    { source: "users", source_port: "out", target: "with_names", target_port: "right" },
  ],
  notes: [
    {
      id: "why",
      text: "Only **adults** count.",
      position: { x: 0, y: -120 },
      width: 200,
      height: null,
    },
  ],
  groups: [
    {
      id: "inputs",
      label: "Inputs",
      position: { x: -20, y: -20 },
      width: 320,
      height: 160,
      nodes: ["adults", "users"],
    },
  ],
  id: 7,
  revision: 3,
  owner: "demo",
  created_at: "2026-11-30T00:00:00+00:00",
  updated_at: "2026-11-30T00:00:00+00:00",
};
const typeOf = (operator) => `${operator}Type`;

describe("document and canvas", () => {
  it("round-trips the server's document exactly (read-only fields left out)", () => {
    const { meta, nodes, edges } = documentToCanvas(SERVER_ANSWER, typeOf);
    const {
      id: _id,
      revision: _r,
      owner: _o,
      created_at: _c,
      updated_at: _u,
      ...document
    } = SERVER_ANSWER;
    expect(canvasToDocument(meta, nodes, edges)).toEqual(document);
  });

  it("leaves out what a save's or a restore's answer adds (problems, schemas, workspace)", () => {
    const answer = {
      ...SERVER_ANSWER,
      workspace: "ada",
      problems: [{ code: "x", message: "y" }],
      schemas: { adults: {} },
    };
    const { meta, nodes, edges } = documentToCanvas(answer, typeOf);
    const sent = canvasToDocument(meta, nodes, edges);
    expect(Object.keys(sent)).not.toContain("problems");
    expect(Object.keys(sent)).not.toContain("schemas");
    expect(Object.keys(sent)).not.toContain("workspace");
  });

  it("uses port names as handle ids and the operator for the node type", () => {
    const { nodes, edges } = documentToCanvas(SERVER_ANSWER, typeOf);
    expect(nodes[0]).toMatchObject({
      id: "adults",
      type: "filterType",
      position: { x: 260, y: 0 },
    });
    expect(edges[0]).toMatchObject({
      source: "adults",
      sourceHandle: "out",
      target: "with_names",
      targetHandle: "left",
    });
  });

  it("sorts nodes by id and edges by their four ends, as the server's export does", () => {
    const { meta, nodes, edges } = documentToCanvas(SERVER_ANSWER, typeOf);
    const document = canvasToDocument(meta, [...nodes].reverse(), [...edges].reverse());
    expect(document.nodes.map((node) => node.id)).toEqual(["adults", "users", "with_names"]);
    expect(document.edges.map((edge) => `${edge.source}>${edge.target}`)).toEqual([
      "adults>with_names",
      "users>adults",
      "users>with_names",
    ]);
  });

  it("keeps only document fields on nodes (no selection, sizes or React Flow state)", () => {
    const { meta, nodes, edges } = documentToCanvas(SERVER_ANSWER, typeOf);
    const touched = nodes.map((node) => ({
      ...node,
      selected: true,
      measured: { width: 200, height: 60 },
      dragging: false,
    }));
    const document = canvasToDocument(meta, touched, edges);
    expect(Object.keys(document.nodes[0]).sort()).toEqual([
      "id",
      "label",
      "operator",
      "params",
      "position",
      "retries",
      "timeout_s",
    ]);
  });

  it("keeps notes, groups and the backend and cache settings, which the canvas does not draw", () => {
    const { meta, nodes, edges } = documentToCanvas(SERVER_ANSWER, typeOf);
    const document = canvasToDocument(meta, nodes, edges);
    expect(document.notes).toEqual(SERVER_ANSWER.notes);
    expect(document.groups).toEqual(SERVER_ANSWER.groups);
    expect(document.config).toMatchObject({ backend: "duckdb", cache: false });
  });

  it("takes a deleted node out of the groups that framed it", () => {
    const { meta, nodes, edges } = documentToCanvas(SERVER_ANSWER, typeOf);
    const document = canvasToDocument(
      meta,
      nodes.filter((node) => node.id !== "users"),
      edges.filter((edge) => edge.source !== "users"),
    );
    expect(document.groups[0]).toEqual({ ...SERVER_ANSWER.groups[0], nodes: ["adults"] });
  });

  it("fills the defaults of a minimal document", () => {
    const { meta, nodes, edges } = documentToCanvas(
      {
        name: "x",
        nodes: [{ id: "a", operator: "filter" }],
        edges: [{ source: "a", target: "a" }],
      },
      typeOf,
    );
    const document = canvasToDocument(meta, nodes, edges);
    expect(document.nodes[0]).toEqual({
      id: "a",
      operator: "filter",
      label: "",
      params: {},
      position: { x: 0, y: 0 },
      retries: null,
      timeout_s: null,
    });
    expect(document.edges[0]).toEqual({
      source: "a",
      source_port: "out",
      target: "a",
      target_port: "in",
    });
  });

  it("saves each group's box as its frame around its nodes when card sizes are known", () => {
    const { meta, nodes, edges } = documentToCanvas(SERVER_ANSWER, typeOf);
    const moved = nodes.map((node) =>
      node.id === "users" ? { ...node, position: { x: -100, y: 50 } } : node,
    );
    const document = canvasToDocument(meta, moved, edges, () => ({ width: 200, height: 92 }));
    expect(document.groups).toEqual([
      { ...SERVER_ANSWER.groups[0], position: { x: -120, y: -52 }, width: 600, height: 214 },
    ]);
  });

  it("brings notes edited on the canvas back as the document has them", () => {
    const { meta, nodes, edges } = documentToCanvas(SERVER_ANSWER, typeOf);
    const note = {
      id: "note_1",
      text: "# Hi\n[x](javascript:alert(1))",
      position: { x: 10, y: 20 },
      width: 300,
      height: 120,
    };
    const document = canvasToDocument({ ...meta, notes: [...meta.notes, note] }, nodes, edges);
    const again = documentToCanvas({ ...document, id: 7, revision: 4 }, typeOf);
    expect(again.meta.notes).toEqual([...SERVER_ANSWER.notes, note]);
    expect(canvasToDocument(again.meta, again.nodes, again.edges)).toEqual(document);
  });

  it("names a copy of the user's version within the length a name may have", () => {
    expect(copyName("Sales")).toBe("Sales (my copy)");
    expect(copyName("x".repeat(200))).toHaveLength(200);
    expect(copyName("x".repeat(200)).endsWith(" (my copy)")).toBe(true);
  });
});
