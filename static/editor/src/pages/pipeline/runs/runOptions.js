// What a run may be asked besides its parameters, in the user's words: run fresh (reuse no
// stored result), run up to a node (it and its ancestors), run from a node (it and what is
// below it, reusing what is stored above it), and untuned (plan without the figures of past
// runs). The server's start-run body takes them as is.

/** The options that run up to `node`. */
export const upTo = (node) => ({ up_to: node });

/** The options that run from `node`. */
export const fromNode = (node) => ({ from_node: node });

/** The options that reuse nothing. */
export const FRESH = Object.freeze({ fresh: true });

/** `options` for a run planned with (`tuning` true) or without the figures of past runs. */
export function withTuning(options, tuning) {
  if (tuning) return options;
  return { ...options, tuning: false };
}

/** What starting a run with `options` is called ("Run from filter_1", "Run fresh, untuned"). */
export function runOptionTitle(options = {}) {
  const untuned = options.tuning === false ? ", untuned" : "";
  if (options.up_to) return `Run up to ${options.up_to}${untuned}`;
  if (options.from_node) return `Run from ${options.from_node}${untuned}`;
  if (options.allow_problems) return `Run anyway${untuned}`;
  return `${options.fresh ? "Run fresh" : "Run"}${untuned}`;
}

/** How history and a run's details label a run planned without past runs' figures (null for
 * a tuned run, and for one recorded before runs said). */
export function untunedLabel(run) {
  if (run.tuning !== false) return null;
  return { text: "untuned", title: "Planned without the figures of past runs (the fixed rules)" };
}
