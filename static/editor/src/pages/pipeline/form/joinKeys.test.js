import { describe, expect, it } from "vitest";
import { joinedOn, sharedKeys } from "./joinKeys.js";

const column = (name) => ({ name, type: "string", nullable: true });
const schemas = (left, right) => ({
  inputs: { left: left?.map(column) ?? null, right: right?.map(column) ?? null },
});

describe("sharedKeys", () => {
  it("offers the columns both inputs have, key-like names first", () => {
    const both = schemas(["name", "user_id", "country"], ["country", "name", "user_id"]);
    expect(sharedKeys({}, both)).toEqual(["user_id", "name", "country"]);
  });

  it("offers nothing once a key is chosen on either side", () => {
    const both = schemas(["country"], ["country"]);
    expect(sharedKeys({ left_on: ["country"] }, both)).toEqual([]);
    expect(sharedKeys({ right_on: ["country"] }, both)).toEqual([]);
  });

  it("offers nothing while an input's columns are unknown", () => {
    expect(sharedKeys({}, schemas(["country"], null))).toEqual([]);
  });

  it("offers at most three", () => {
    const names = ["a", "b", "c", "d"];
    expect(sharedKeys({}, schemas(names, names))).toHaveLength(3);
  });
});

describe("joinedOn", () => {
  it("sets the same key on both sides and keeps the other params", () => {
    expect(joinedOn({ how: "left" }, "id")).toEqual({
      how: "left",
      left_on: ["id"],
      right_on: ["id"],
    });
  });
});
