// Auto-layout's last step: Graphviz places the nodes (POST …/layout) as boxes of one size,
// but cards are taller with port rows or a problem note. This spreads its columns apart by
// the cards' real sizes, keeping its order, so that no two cards overlap.

const GAP = 24;

/**
 * `positions` ({id: {x, y}}, the top-left corners Graphviz gave) moved so that cards of
 * `sizes` ({id: {width, height}}) do not overlap: nodes whose boxes share an x range form a
 * column, kept in their top-to-bottom order and pushed down below the card above; a column
 * moves right of the one before it. Ids without a size keep their place.
 */
export function spreadLayout(positions, sizes, gap = GAP) {
  const ids = Object.keys(positions)
    .filter((id) => sizes[id])
    .sort((a, b) => positions[a].x - positions[b].x || positions[a].y - positions[b].y);
  const columns = [];
  for (const id of ids) {
    const column = columns.at(-1);
    if (column && positions[id].x < column.right) {
      column.ids.push(id);
      column.right = Math.max(column.right, positions[id].x + sizes[id].width);
    } else {
      columns.push({ ids: [id], left: positions[id].x, right: positions[id].x + sizes[id].width });
    }
  }
  const spread = { ...positions };
  let previousRight = -Infinity;
  for (const column of columns) {
    const shift = Math.max(0, previousRight + gap - column.left);
    let bottom = -Infinity;
    for (const id of column.ids.sort((a, b) => positions[a].y - positions[b].y)) {
      const y = Math.max(positions[id].y, bottom + gap);
      spread[id] = { x: Math.round(positions[id].x + shift), y: Math.round(y) };
      bottom = y + sizes[id].height;
    }
    previousRight = column.right + shift;
  }
  return spread;
}
