import { describe, expect, it } from "vitest";
import { SHORTCUTS, keyLabel, matches, shortcutFor } from "./shortcuts.js";

const press = (key, extra = {}) => ({
  key,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  ...extra,
});

describe("the shortcut table", () => {
  it("finds the action of a combination, Ctrl or ⌘ alike", () => {
    expect(shortcutFor(press("s", { ctrlKey: true })).action).toBe("save");
    expect(shortcutFor(press("s", { metaKey: true })).action).toBe("save");
    expect(shortcutFor(press("Z", { ctrlKey: true, shiftKey: true })).action).toBe("redo");
    expect(shortcutFor(press("z", { ctrlKey: true })).action).toBe("undo");
    expect(shortcutFor(press("Delete")).action).toBe("remove");
  });

  it("takes ? typed with Shift as help, and a bare letter as nothing", () => {
    expect(shortcutFor(press("?", { shiftKey: true })).action).toBe("help");
    expect(shortcutFor(press("s"))).toBeNull();
    expect(shortcutFor(press("Delete", { ctrlKey: true }))).toBeNull();
  });

  it("gives every action exactly one row, and every row a title and keys", () => {
    const actions = SHORTCUTS.filter((row) => row.action).map((row) => row.action);
    expect(new Set(actions).size).toBe(actions.length);
    for (const row of SHORTCUTS) expect(row.title && row.keys.length).toBeTruthy();
  });

  it("shows Mod as Ctrl, or ⌘ on a Mac", () => {
    expect(keyLabel("Mod+Shift+Z")).toBe("Ctrl+Shift+Z");
    expect(keyLabel("Mod+S", true)).toBe("⌘+S");
    expect(matches("Mod+Shift+Z", press("z", { ctrlKey: true }))).toBe(false);
  });
});
