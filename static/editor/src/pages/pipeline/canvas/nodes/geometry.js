// A node card's size and where its port handles are, known without drawing it. React Flow is
// given them with every node (canvas/useSizedNodes.js), so that it neither measures a big
// pipeline's cards when it opens nor waits for that to draw the edges. NodeCard.jsx takes the
// card's height and its handles' `top` from here; the heights of the card's parts are set in
// editor.css ("nodes") and add up to these.

import { Position } from "@xyflow/react";

const WIDTH = 200;
const BORDER = 1;
const STRIPE = 4; // the left border, in the colour of the operator's kind
const HEAD = 50; // icon, label and operator
const RUN = 40; // status and metrics (kept, hidden, while idle)
const PROBLEM = 42; // the first problem's message, on two lines
const PORT_LIST_EDGE = 4; // the port list's top border and padding; as much padding below
const PORT_ROW = 20;
const HANDLE = 15;
const NO_STRAY_PORTS = Object.freeze({ inputs: [], outputs: [] });

/**
 * `{width, height, handles}` of the card of a node with `ports` (`{inputs, outputs}`), with or
 * without its problem note. `handles` are React Flow's: `{id, type, position, x, y, width,
 * height}`, x and y from the card's top left corner, ids the port names. `stray` ports
 * (`{inputs, outputs}` of names, which stored edges name but the operator lacks) get handles
 * for their edges to be drawn and deleted: on rows of their own below a card's labelled ports
 * (a route's removed condition), else at the card's bottom corners.
 */
export function cardGeometry(ports, withProblem, stray = NO_STRAY_PORTS) {
  const { inputs, outputs } = ports;
  const labelled = isLabelled(ports);
  const portRows = labelled
    ? Math.max(inputs.length + stray.inputs.length, outputs.length + stray.outputs.length)
    : 0;
  const portsTop = BORDER + HEAD + RUN + (withProblem ? PROBLEM : 0);
  const portsHeight = portRows ? 2 * PORT_LIST_EDGE + portRows * PORT_ROW : 0;
  // One port a side sits level with the middle of the head and the run line; labelled ports
  // on their rows.
  const middleOf = portRows
    ? (index) => portsTop + PORT_LIST_EDGE + (index + 0.5) * PORT_ROW
    : () => BORDER + (HEAD + RUN) / 2;
  const height = portsTop + portsHeight + BORDER;
  const strayY = height - BORDER - HANDLE / 2 - 2;
  return {
    width: WIDTH,
    height,
    handles: [
      ...inputs.map((port, index) =>
        handle(port.name, "target", Position.Left, STRIPE, middleOf(index)),
      ),
      ...outputs.map((port, index) =>
        handle(port.name, "source", Position.Right, WIDTH - BORDER, middleOf(index)),
      ),
      ...stray.inputs.map((name, index) => ({
        ...handle(
          name,
          "target",
          Position.Left,
          STRIPE,
          labelled ? middleOf(inputs.length + index) : strayY,
        ),
        stray: true,
      })),
      ...stray.outputs.map((name, index) => ({
        ...handle(
          name,
          "source",
          Position.Right,
          WIDTH - BORDER,
          labelled ? middleOf(outputs.length + index) : strayY,
        ),
        stray: true,
      })),
    ],
  };
}

/** Whether the card names its ports: when a side has more than one. */
export function isLabelled({ inputs, outputs }) {
  return inputs.length > 1 || outputs.length > 1;
}

/** The CSS `top` of a handle: from the inside of the card's top border. Its left or right
 * comes from editor.css, which centres the handle on the inside edge of the card's border. */
export function handleTop(handle) {
  return handle.y - BORDER;
}

/** Where an edge meets a handle of a node at `position`: the middle of the handle's outer
 * side, as React Flow draws its edges. */
export function edgeEnd(position, handle) {
  const outer = handle.position === Position.Right ? handle.width : 0;
  return { x: position.x + handle.x + outer, y: position.y + handle.y + handle.height / 2 };
}

function handle(id, type, position, centerX, centerY) {
  return {
    id,
    type,
    position,
    x: centerX - HANDLE / 2,
    y: centerY - HANDLE / 2,
    width: HANDLE,
    height: HANDLE,
  };
}
