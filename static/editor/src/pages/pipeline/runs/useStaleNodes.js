// Marks on the canvas the nodes the last run no longer describes (staleNodes.js): once the live
// run has ended, its document is fetched (once per run) and compared with the canvas after
// each edit; `overlay.stale` holds the stale ids until the next run starts.

import { useEffect, useState } from "react";
import { canvasToDocument } from "../document/document.js";
import { useStore } from "../../../lib/store.js";
import { staleNodes } from "./staleNodes.js";

const NONE = new Set();

/** `present` is the canvas' graph (`{meta, nodes, edges}`); `sets` the status sets. */
export function useStaleNodes({ api, overlay, present, sets }) {
  const runId = useStore(overlay, (value) => value.live.runId);
  const ended = useStore(
    overlay,
    (value) => value.live.runId !== null && !sets.runActive.has(value.live.status),
  );
  const [ran, setRan] = useState(null); // {runId, document}

  useEffect(() => {
    if (!ended || runId === null || ran?.runId === runId) return undefined;
    let current = true;
    api.get(`/api/runs/${runId}`).then(
      (run) => current && setRan({ runId, document: run.document }),
      () => {}, // no run to compare with: nothing is marked
    );
    return () => {
      current = false;
    };
  }, [api, runId, ended, ran]);

  useEffect(() => {
    const known = ended && ran?.runId === runId;
    const stale = known
      ? staleNodes(ran.document, canvasToDocument(present.meta, present.nodes, present.edges))
      : NONE;
    overlay.set((value) => (sameIds(value.stale, stale) ? value : { ...value, stale }));
  }, [overlay, present, ran, runId, ended]);
}

function sameIds(before, after) {
  if ((before ?? NONE).size !== after.size) return false;
  for (const id of after) if (!before.has(id)) return false;
  return true;
}
