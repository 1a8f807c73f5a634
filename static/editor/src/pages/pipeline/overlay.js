// What the canvas shows on top of the graph: the live run, a past run picked from the
// history (shown instead of the live one), validation problems by node, and while the plan
// view is open, each node's mark in the plan (plan/plan.js); after a run, the nodes edited
// since and those below them (`stale`, runs/staleNodes.js); the column whose lineage is
// asked for and its path's marks (`lineageAsked`, `lineage`, lineage/lineage.js).

import { IDLE_RUN } from "./runs/runState.js";
import { createStore } from "../../lib/store.js";

/** A store of `{live, viewed, problems, plan, stale}` (`plan`: null outside the plan view;
 * `stale`: a Set of node ids). */
export function createOverlay() {
  return createStore({
    live: IDLE_RUN,
    viewed: null,
    problems: {},
    plan: null,
    stale: new Set(),
    lineageAsked: null,
    lineage: null,
  });
}

/** The run the canvas shows: the one picked from the history, else the live one. */
export const shownRun = (state) => state.viewed ?? state.live;
