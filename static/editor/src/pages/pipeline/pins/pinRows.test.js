import { describe, expect, it } from "vitest";
import { parseRows, rowsText } from "./pinRows.js";

describe("rows to pin", () => {
  it("turns a page into one object per row and back", () => {
    const page = {
      columns: [{ name: "id" }, { name: "name" }],
      rows: [
        [1, "Ada"],
        [2, null],
      ],
    };
    expect(parseRows(rowsText(page))).toEqual([
      { id: 1, name: "Ada" },
      { id: 2, name: null },
    ]);
  });

  it("says why text is not rows", () => {
    expect(parseRows("[1, 2]").message).toBe("the rows are a list of {column: value}");
    expect(parseRows("{").message).toMatch(/^the rows are not JSON/);
  });
});
