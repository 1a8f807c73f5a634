// Where the graph is on the screen: React Flow's viewport ({x, y, zoom}) maps a flow
// position p to the screen position p * zoom + (x, y) inside the canvas.
//
// How far to zoom is chosen for reading: a card's smallest text is 12.5 px in the flow, so the
// editor opens at zoom 0.88 at least, where that is 11 px (the canvas pans to the rest); zoomed further out the cards
// show only their title, in type large enough to stay readable down to the zoom that "Fit
// view" never goes below; below that, and only there, cards are plain boxes.

/** The zoom at which every text on a card is at least 11 px on the screen (nodes.css). */
export const READABLE_ZOOM = 11 / 12.5;
/** Below this zoom a card shows only its title (nodes.css: `.pw-node-big-title`). */
export const TITLES_ONLY_BELOW = 0.6;
/** The title-only card's type, in flow pixels: 11 px on the screen at `FIT_MIN_ZOOM`. */
export const BIG_TITLE_PX = 26;
/** "Fit view" zooms out no further: the title-only cards' titles are 11 px here. */
export const FIT_MIN_ZOOM = 11 / BIG_TITLE_PX;
/** Below this zoom cards are boxes without text (many nodes: text costs, and is not read). */
export const BOXES_BELOW = 0.2;
/** Below this zoom the canvas draws plain edges on big graphs (Canvas.jsx). */
const ZOOMED_OUT_BELOW = 0.4;
const MAX_ZOOM = 1.2;
const PADDING = 0.08;

/** Whether React Flow's store state is zoomed out (a selector for its `useStore`). */
export const isZoomedOut = (state) => state.transform[2] < ZOOMED_OUT_BELOW;

/** How much a card shows at `zoom`: "full", "title" (its title, large) or "box" (nothing). */
export function cardDetail(zoom) {
  if (zoom < BOXES_BELOW) return "box";
  return zoom < TITLES_ONLY_BELOW ? "title" : "full";
}

/** `cardDetail` of React Flow's store state (a selector for its `useStore`). */
export const cardDetailOf = (state) => cardDetail(state.transform[2]);

/**
 * The viewport that shows `bounds` (a flow rectangle) in a canvas of `size`, zoomed to fit
 * but kept within [`minZoom`, `maxZoom`]. When the graph is larger than the canvas at that
 * zoom, its top left corner is shown (where a pipeline starts: its inputs), and the rest is
 * reached by panning; a side that fits is centred.
 */
export function viewportFor(bounds, size, { minZoom, maxZoom = MAX_ZOOM, padding = PADDING }) {
  const fit = Math.min(
    size.width / (bounds.width * (1 + 2 * padding) || 1),
    size.height / (bounds.height * (1 + 2 * padding) || 1),
  );
  const zoom = Math.min(maxZoom, Math.max(minZoom, fit));
  const place = (start, length, room) => {
    const shown = length * zoom;
    const margin = Math.min(room * padding, 40);
    return shown <= room ? (room - shown) / 2 - start * zoom : margin - start * zoom;
  };
  return {
    x: place(bounds.x, bounds.width, size.width),
    y: place(bounds.y, bounds.height, size.height),
    zoom,
  };
}

/** React Flow's `fitView` options of the editor: its fit never below `FIT_MIN_ZOOM`. */
export const FIT_VIEW = Object.freeze({
  padding: PADDING,
  maxZoom: MAX_ZOOM,
  minZoom: FIT_MIN_ZOOM,
});

/** The viewport the editor opens at: the graph fitted, but never below a readable zoom. */
export const openingViewport = (bounds, size) =>
  viewportFor(bounds, size, { minZoom: READABLE_ZOOM });

/** The viewport of "Fit view": the graph fitted, never so far out that titles are unreadable. */
export const fittedViewport = (bounds, size) =>
  viewportFor(bounds, size, { minZoom: FIT_MIN_ZOOM });

/** Whether a rectangle of the flow ({x, y, width, height}) shows whole in a canvas of `size`. */
export function isInView(rect, viewport, size, tolerance = 1) {
  const left = rect.x * viewport.zoom + viewport.x;
  const top = rect.y * viewport.zoom + viewport.y;
  return (
    left >= -tolerance &&
    top >= -tolerance &&
    left + rect.width * viewport.zoom <= size.width + tolerance &&
    top + rect.height * viewport.zoom <= size.height + tolerance
  );
}
