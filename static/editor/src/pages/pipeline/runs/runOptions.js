// What a run may be asked besides its parameters, in the user's words: run fresh (reuse no
// stored result), run up to a node (it and its ancestors), run from a node (it and what is
// below it, reusing what is stored above it). The server's start-run body takes them as is.

/** The options that run up to `node`. */
export const upTo = (node) => ({ up_to: node });

/** The options that run from `node`. */
export const fromNode = (node) => ({ from_node: node });

/** The options that reuse nothing. */
export const FRESH = Object.freeze({ fresh: true });

/** What starting a run with `options` is called ("Run from filter_1"). */
export function runOptionTitle(options = {}) {
  if (options.up_to) return `Run up to ${options.up_to}`;
  if (options.from_node) return `Run from ${options.from_node}`;
  if (options.allow_problems) return "Run anyway";
  return options.fresh ? "Run fresh" : "Run";
}
