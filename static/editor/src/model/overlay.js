// What the canvas shows on top of the graph: the live run, a past run picked from the
// history (shown instead of the live one), and validation problems by node.

import { IDLE_RUN } from "./runState.js";
import { createStore } from "./store.js";

/** A store of `{live, viewed, problems}`. */
export function createOverlay() {
  return createStore({ live: IDLE_RUN, viewed: null, problems: {} });
}

/** The run the canvas shows: the one picked from the history, else the live one. */
export const shownRun = (state) => state.viewed ?? state.live;
