// The bottom panel's height, chosen by dragging its top edge (or the arrow keys on it) and
// kept in localStorage so that the next pipeline opened gets it too.

export const PANEL_HEIGHT_KEY = "pipewright.bottomPanelHeight";
export const MIN_PANEL_HEIGHT = 160; // BottomPanel.css's min-height
/** What the canvas keeps at least, above the panel. */
export const MIN_CANVAS_HEIGHT = 160;
/** One arrow key press on the splitter; with Shift, four. */
export const KEY_STEP = 24;

/** `height` kept between the smallest panel and the most the canvas gives up in `room`. */
export function clampPanelHeight(height, room) {
  const most = Math.max(MIN_PANEL_HEIGHT, room - MIN_CANVAS_HEIGHT);
  return Math.round(Math.min(most, Math.max(MIN_PANEL_HEIGHT, height)));
}

/** The height stored by an earlier visit, or null (none, or not a number). */
export function storedPanelHeight(storage) {
  try {
    const value = Number.parseInt(storage?.getItem(PANEL_HEIGHT_KEY) ?? "", 10);
    return Number.isFinite(value) && value > 0 ? value : null;
  } catch {
    return null; // storage disabled
  }
}

/** The height an arrow key on the splitter asks for, or null for another key. */
export function heightForKey(key, shift, height) {
  const step = shift ? KEY_STEP * 4 : KEY_STEP;
  if (key === "ArrowUp") return height + step;
  if (key === "ArrowDown") return height - step;
  return null;
}
