import { describe, expect, it } from "vitest";
import { NOBODY, applyMessage, cssString, selectionCss, shownPeople } from "./together.js";

const grace = { id: "a1", user: 2, name: "Grace Hopper", initials: "GH", colour: "#2b8a3e" };

describe("presence", () => {
  it("adds a person with their selection and removes them when they leave", () => {
    const joined = applyMessage(NOBODY, { type: "presence", who: grace, selection: "adults" });
    expect(joined.people.a1.selection).toBe("adults");
    expect(applyMessage(joined, { type: "presence_left", id: "a1" }).people).toEqual({});
  });

  it("shows two tabs of one person as one, with both selections", () => {
    let state = applyMessage(NOBODY, { type: "presence", who: grace, selection: "read" });
    state = applyMessage(state, { type: "presence", who: { ...grace, id: "a2" }, selection: null });
    const [shown, ...others] = shownPeople(state.people);
    expect(others).toEqual([]);
    expect(shown.selections).toEqual(["read"]);
  });

  it("outlines a selected node in its person's colour, names quoted", () => {
    const state = applyMessage(NOBODY, {
      type: "presence",
      who: { ...grace, name: 'Grace "G" Hopper' },
      selection: "adults",
    });
    const css = selectionCss(state.people);
    expect(css).toContain(
      '.react-flow__node[data-id="adults"] [data-node-id]{outline:3px solid #2b8a3e',
    );
    expect(css).toContain('content:"Grace\\20 \\22 G\\22 \\20 Hopper"');
  });

  it("escapes what another person sends so that it ends neither the string nor the rule", () => {
    const hostile = 'x\f] {} body{display:none} a[b="';
    expect(cssString(hostile)).toMatch(/^"[A-Za-z0-9_\- \\]*"$/);
    const state = applyMessage(NOBODY, { type: "presence", who: grace, selection: hostile });
    const css = selectionCss(state.people);
    expect(css.split("\n")).toHaveLength(2); // the outline and the name, nothing else
    expect(css).not.toContain("body{");
  });

  it("remembers the last save someone made", () => {
    const message = { type: "saved", by: "Grace", revision: 4, user: 2, username: "grace" };
    const state = applyMessage(NOBODY, message);
    expect(state.saved).toEqual({ by: "Grace", revision: 4, user: 2, username: "grace" });
  });
});
