// Undo / redo over immutable snapshots: `{past, present, future, lastKey}`.
// Consecutive records with the same `key` (typing in one field) merge into one undo step.

const LIMIT = 200;

/** A history whose present is `present`, with nothing to undo or redo. */
export function createHistory(present) {
  return { past: [], present, future: [], lastKey: null };
}

/** Make `next` the present as a new undo step (merged with the last one when `key` repeats). */
export function record(history, next, key = null) {
  if (next === history.present) return history;
  if (key !== null && key === history.lastKey) {
    return { ...history, present: next, future: [] };
  }
  return {
    past: [...history.past, history.present].slice(-LIMIT),
    present: next,
    future: [],
    lastKey: key,
  };
}

/** Make `next` the present as part of the last undo step (what a drag's drop did besides moving). */
export function amend(history, next) {
  return next === history.present ? history : { ...history, present: next, future: [] };
}

/** Change the present without an undo step (selection, sizes). */
export function replace(history, next) {
  return next === history.present ? history : { ...history, present: next };
}

/** Go back one step (unchanged when there is nothing to undo). */
export function undo(history) {
  if (!history.past.length) return history;
  return {
    past: history.past.slice(0, -1),
    present: history.past[history.past.length - 1],
    future: [history.present, ...history.future],
    lastKey: null,
  };
}

/** Go forward one step (unchanged when there is nothing to redo). */
export function redo(history) {
  if (!history.future.length) return history;
  return {
    past: [...history.past, history.present],
    present: history.future[0],
    future: history.future.slice(1),
    lastKey: null,
  };
}

export const canUndo = (history) => history.past.length > 0;
export const canRedo = (history) => history.future.length > 0;
