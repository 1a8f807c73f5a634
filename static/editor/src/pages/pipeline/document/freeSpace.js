// Where something new goes on the canvas: in free space as near the wanted spot (the middle of
// the view, or where it was dropped) as can be, so that a new note, a paste or a node put into
// an edge neither covers a card nor lands out of sight past a row of them.

const GAP = 24;
const STEP = 24;
const RINGS = 40; // searched up to 40 steps (960 px) from the wanted spot each way

/** The rectangle ({x, y, width, height}) of each box-like thing: nodes, notes. */
export function boxesOf(nodes, sizeOf) {
  return nodes.map((node) => ({ ...node.position, ...sizeOf(node) }));
}

/** The smallest rectangle around `boxes`, or null when there are none. */
export function boundsOf(boxes) {
  if (!boxes.length) return null;
  const left = Math.min(...boxes.map((box) => box.x));
  const top = Math.min(...boxes.map((box) => box.y));
  const right = Math.max(...boxes.map((box) => box.x + box.width));
  const bottom = Math.max(...boxes.map((box) => box.y + box.height));
  return { x: left, y: top, width: right - left, height: bottom - top };
}

const overlaps = (a, b, gap) =>
  a.x < b.x + b.width + gap &&
  b.x < a.x + a.width + gap &&
  a.y < b.y + b.height + gap &&
  b.y < a.y + a.height + gap;

/**
 * The top left corner nearest `wanted` (a top left corner) where a box of `size` keeps `gap`
 * clear of every one of `boxes`. Spots are tried on a grid of `STEP` around `wanted`, nearest
 * first; on a tie, right of and below `wanted` come first (the way data flows). When no spot
 * within reach is free, `wanted` itself.
 */
export function nearestFreeSpot(boxes, wanted, size, gap = GAP) {
  const free = (spot) =>
    !boxes.some((box) => overlaps({ ...spot, width: size.width, height: size.height }, box, gap));
  if (free(wanted)) return { x: Math.round(wanted.x), y: Math.round(wanted.y) };
  // Only the boxes the search can reach are checked.
  const reach = RINGS * STEP + gap;
  const near = boxes.filter(
    (box) =>
      box.x < wanted.x + size.width + reach &&
      wanted.x - reach < box.x + box.width &&
      box.y < wanted.y + size.height + reach &&
      wanted.y - reach < box.y + box.height,
  );
  const candidates = [];
  for (let i = -RINGS; i <= RINGS; i += 1) {
    for (let j = -RINGS; j <= RINGS; j += 1) {
      candidates.push({ i, j, distance: Math.hypot(i, j) });
    }
  }
  candidates.sort((a, b) => a.distance - b.distance || b.i - a.i || b.j - a.j);
  for (const { i, j } of candidates) {
    const spot = { x: Math.round(wanted.x + i * STEP), y: Math.round(wanted.y + j * STEP) };
    const box = { ...spot, width: size.width, height: size.height };
    if (!near.some((other) => overlaps(box, other, gap))) return spot;
  }
  return { x: Math.round(wanted.x), y: Math.round(wanted.y) };
}

/** `nearestFreeSpot` for a box centred on `center` rather than cornered at a spot. */
export function freeSpotAround(boxes, center, size, gap = GAP) {
  return nearestFreeSpot(
    boxes,
    { x: center.x - size.width / 2, y: center.y - size.height / 2 },
    size,
    gap,
  );
}
