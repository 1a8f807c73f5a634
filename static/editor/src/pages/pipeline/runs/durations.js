// A run has three durations, each measuring something else; the editor names which one it
// shows and says in a tooltip what it counts, so that 404 ms, 630 ms and 417 ms of one run
// do not look like disagreeing clocks.

import { formatDuration } from "../../../lib/format.js";

const KINDS = {
  // The engine's own clock, from the run's end event: planning and running the nodes.
  engine: {
    word: "ran",
    title: "The engine's time: planning the run and running its nodes.",
  },
  // The server's started_at → finished_at: the engine's time plus starting the run's process,
  // reading its inputs' schemas and writing its record.
  recorded: {
    word: "start to end",
    title:
      "From the run's start to its end as the server recorded them: the engine's time plus " +
      "starting the run's process and recording its results.",
  },
  // The timeline's span: the first node's start to the last node's end.
  nodes: {
    word: "nodes over",
    title: "From the first node's start to the last node's end.",
  },
};

/** `{text, title}` for a duration of `kind` ("engine", "recorded" or "nodes"): "ran 404 ms",
 * "start to end 630 ms", "nodes over 417 ms", and what it measures. */
export function durationLabel(kind, seconds) {
  const { word, title } = KINDS[kind];
  return { text: `${word} ${formatDuration(seconds)}`, title };
}
