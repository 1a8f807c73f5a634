// Where the graph is on the screen: React Flow's viewport ({x, y, zoom}) maps a flow
// position p to the screen position p * zoom + (x, y) inside the canvas.

/** Below this zoom the canvas draws less detail: a card's label is 5 px high at 0.4. */
const ZOOMED_OUT_BELOW = 0.4;

/** Whether React Flow's store state is zoomed out (a selector for its `useStore`). */
export const isZoomedOut = (state) => state.transform[2] < ZOOMED_OUT_BELOW;

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
