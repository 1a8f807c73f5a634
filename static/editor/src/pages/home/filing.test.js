import { describe, expect, it } from "vitest";
import { listUrl, searchFor, tagsFromText } from "./filing.js";

describe("filing on the home page", () => {
  it("reads tags separated by commas, dropping empty ones", () => {
    expect(tagsFromText(" kpi, daily ,, ")).toEqual(["kpi", "daily"]);
    expect(tagsFromText("")).toEqual([]);
  });

  it("searches a clicked tag or folder by its kind, unless it has spaces", () => {
    expect(searchFor("tag", "kpi")).toBe("tag:kpi");
    expect(searchFor("folder", "sales/monthly")).toBe("folder:sales/monthly");
    expect(searchFor("tag", "month end")).toBe("month end");
  });

  it("asks for the search only when there is one", () => {
    expect(listUrl({ query: " ", sort: "last_run", limit: 200 })).toBe(
      "/api/pipelines?limit=200&sort=last_run",
    );
    expect(listUrl({ query: "tag:kpi", sort: "name", limit: 5 })).toBe(
      "/api/pipelines?limit=5&sort=name&q=tag%3Akpi",
    );
  });
});
