// What the canvas shows on top of the graph: the live run, a past run picked from the
// history (shown instead of the live one), validation problems by node, and while the plan
// view is open, each node's mark in the plan (plan/plan.js); after a run, the nodes edited
// since and those below them (`stale`, runs/staleNodes.js); the column whose lineage is
// asked for and its path's marks (`lineageAsked`, `lineage`, lineage/lineage.js); the pinned
// nodes (`pins`, pins/usePins.js); while the run inside a sub-pipeline node is looked at,
// what ran there (`inside`, the answer of `GET /api/runs/<id>/inside/<path>`); how many
// times the user moved the canvas to another view (`moves`, `beginMove`).

import { IDLE_RUN } from "./runs/runState.js";
import { innerRunOnce } from "./subpipelines/inside.js";
import { createStore } from "../../lib/store.js";

/** A store of `{live, viewed, inside, moves, problems, plan, stale, lineageAsked, lineage, pins}`
 * (`plan`: null outside the plan view; `stale`, `pins`: Sets of node ids). */
export function createOverlay() {
  return createStore({
    live: IDLE_RUN,
    viewed: null,
    inside: null,
    moves: 0,
    problems: {},
    plan: null,
    stale: new Set(),
    lineageAsked: null,
    lineage: null,
    pins: new Set(),
  });
}

/** The run the canvas shows: the one picked from the history, else the live one; inside a
 * sub-pipeline node, its inner nodes' runs in it. */
export const shownRun = (state) => {
  const run = state.viewed ?? state.live;
  return state.inside ? innerRunOnce(run, state.inside.prefix) : run;
};

/** Whether the canvas shows the outer pipeline's own nodes (the marks by node id are theirs). */
export const outerShown = (state) => state.inside === null;

/** Begins a move of the canvas to another view (a past run, the run inside a node, back to
 * the live run). Returns `settle(update)`, which sets the overlay only while no other move
 * began since: a slow answer from the server never undoes a later click. */
export function beginMove(overlay) {
  overlay.set((value) => ({ ...value, moves: value.moves + 1 }));
  const move = overlay.get().moves;
  return (update) => {
    if (overlay.get().moves === move) overlay.set(update);
  };
}
