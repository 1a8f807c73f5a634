import { describe, expect, it } from "vitest";
import { folderOf, matchingPaths, nameOf, pathIn } from "./workspaceLists.js";

const PATHS = ["data/customers.csv", "data/orders.csv", "shared/rates.csv", "custom/notes.csv"];

describe("the files a path field suggests", () => {
  it("match every typed word in any case, file names starting with it first", () => {
    expect(matchingPaths(PATHS, "CUST")).toEqual(["data/customers.csv", "custom/notes.csv"]);
    expect(matchingPaths(PATHS, "data csv")).toEqual(["data/customers.csv", "data/orders.csv"]);
  });

  it("are at most the limit, and all of them for empty text", () => {
    expect(matchingPaths(PATHS, "", 2)).toHaveLength(2);
    expect(matchingPaths(null, "x")).toEqual([]);
  });

  it("open the browser in the folder of the field's path", () => {
    expect(folderOf("data/sub/x.csv")).toBe("data/sub");
    expect(folderOf("x.csv")).toBe("");
    expect(folderOf(undefined)).toBe("");
  });

  it("save an output's file under the folder shown, with the name typed", () => {
    expect(nameOf("out/sub/adults.csv")).toBe("adults.csv");
    expect(pathIn("out", " adults.csv ")).toBe("out/adults.csv");
    expect(pathIn("", "/adults.csv")).toBe("adults.csv");
    expect(pathIn("out", "2026/adults.csv")).toBe("out/2026/adults.csv");
  });
});
