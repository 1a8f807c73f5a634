import { describe, expect, it } from "vitest";
import {
  deleteItems,
  framedGroups,
  groupFrame,
  groupNodes,
  itemKey,
  itemOf,
  newNote,
  noteSize,
  renameGroup,
  shifted,
  updateNote,
  withoutNodes,
} from "./canvasItems.js";

const at = (x, y) => ({ position: { x, y } });
const SIZE = () => ({ width: 200, height: 92 });

describe("notes", () => {
  it("get an id no note has, a rounded position and the default size", () => {
    const note = newNote([{ id: "note_1" }], { x: 10.4, y: -3.6 });
    expect(note).toEqual({
      id: "note_2",
      text: "",
      position: { x: 10, y: -4 },
      width: 240,
      height: 140,
      color: "yellow",
    });
  });

  it("change by patch and fill an open side with the default", () => {
    const notes = updateNote([{ id: "a", text: "", width: null, height: 80 }], "a", {
      text: "**hi**",
    });
    expect(notes[0].text).toBe("**hi**");
    expect(noteSize(notes[0])).toEqual({ width: 240, height: 80 });
  });
});

describe("groups", () => {
  it("take the nodes out of the groups they were in, which go when emptied", () => {
    const before = [
      { id: "group_1", label: "A", nodes: ["a", "b"] },
      { id: "group_2", label: "B", nodes: ["c"] },
    ];
    const { groups, id } = groupNodes(before, ["b", "c"]);
    expect(id).toBe("group_3");
    expect(groups.map((group) => [group.id, group.label, group.nodes])).toEqual([
      ["group_1", "A", ["a"]],
      ["group_3", "Group 3", ["b", "c"]],
    ]);
  });

  it("are not made of nothing", () => {
    const groups = [{ id: "g", nodes: ["a"] }];
    expect(groupNodes(groups, []).groups).toBe(groups);
    expect(withoutNodes(groups, ["z"])).toBe(groups);
  });

  it("are renamed", () => {
    expect(renameGroup([{ id: "g", label: "x", nodes: [] }], "g", "Inputs")[0].label).toBe(
      "Inputs",
    );
  });

  it("frame their nodes' cards with room for the label, wherever the nodes are", () => {
    const byId = new Map([
      ["a", at(0, 0)],
      ["b", at(300, 100)],
    ]);
    expect(groupFrame({ nodes: ["a", "b"] }, byId, SIZE)).toEqual({
      x: -20,
      y: -52,
      width: 540,
      height: 264,
    });
  });

  it("keep their own box when none of their nodes is on the canvas", () => {
    const group = { nodes: ["gone"], position: { x: 5, y: 6 }, width: 400, height: 300 };
    expect(groupFrame(group, new Map(), SIZE)).toEqual({ x: 5, y: 6, width: 400, height: 300 });
  });

  it("store their frame as their box, within the document's largest size", () => {
    const nodes = [
      { id: "a", ...at(0, 0) },
      { id: "b", ...at(200_000, 0) },
    ];
    const [group] = framedGroups(
      [{ id: "g", label: "", position: { x: 0, y: 0 }, width: 1, height: 1, nodes: ["a", "b"] }],
      nodes,
      SIZE,
    );
    expect(group).toEqual({
      id: "g",
      label: "",
      position: { x: -20, y: -52 },
      width: 100_000,
      height: 164,
      nodes: ["a", "b"],
    });
  });

  it("move their nodes by the frame's drag", () => {
    expect(shifted({ a: { x: 1, y: 2 }, b: { x: 10, y: 20 } }, { x: 5, y: -2 })).toEqual({
      a: { x: 6, y: 0 },
      b: { x: 15, y: 18 },
    });
  });
});

describe("React Flow ids and deleting", () => {
  it("never collide with node ids, which hold no colon", () => {
    expect(itemOf(itemKey("note", "a"))).toEqual({ kind: "note", id: "a" });
    expect(itemOf("group:x:y")).toEqual({ kind: "group", id: "x:y" });
    expect(itemOf("filter_1")).toBeNull();
    expect(itemOf("other:1")).toBeNull();
  });

  it("remove the selected notes and groups and the deleted nodes from their groups", () => {
    const meta = {
      name: "p",
      notes: [{ id: "n1" }, { id: "n2" }],
      groups: [
        { id: "g1", nodes: ["a", "b"] },
        { id: "g2", nodes: ["c"] },
      ],
    };
    const next = deleteItems(meta, new Set(["note:n1", "group:g2"]), ["b"]);
    expect(next).toEqual({
      name: "p",
      notes: [{ id: "n2" }],
      groups: [{ id: "g1", nodes: ["a"] }],
    });
    expect(deleteItems(meta, new Set(), ["z"])).toBe(meta);
  });
});
