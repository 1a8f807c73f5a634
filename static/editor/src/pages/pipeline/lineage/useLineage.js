// The column whose lineage the canvas shows: when one is asked for (`askLineage`, from the Data
// tab's headers or a node panel's picker), its path in the saved pipeline is fetched and its
// marks put on the overlay for the cards and edges; `clearLineage` (or Escape) takes them off.
// An address with `?lineage=NODE:COLUMN` (a link from a downstream pipeline) asks at once.

import { useEffect, useState } from "react";
import { useStore } from "../../../lib/store.js";
import {
  askLineage,
  clearLineage,
  lineageInAddress,
  lineageMarks,
  lineageQuery,
  pathInputs,
  upstreamLines,
} from "./lineage.js";

const NONE = {
  loading: false,
  node: null,
  column: null,
  inputs: [],
  conditions: [],
  upstream: [],
  stops: [],
  error: null,
};

/** What the legend says of the asked column: `{loading, node, column, inputs, conditions,
 * upstream, stops, error}` (`node` null while none is asked; `upstream`: the pipelines it
 * comes from, `upstreamLines`). */
export function useLineage({ api, base, overlay }) {
  const asked = useStore(overlay, (value) => value.lineageAsked ?? null);
  const [shown, setShown] = useState(NONE);
  const [question, setQuestion] = useState(null);

  useEffect(() => {
    const fromAddress = lineageInAddress(window.location.search);
    if (fromAddress) askLineage(overlay, fromAddress.node, fromAddress.column);
  }, [overlay]);

  if (question !== asked) {
    setQuestion(asked);
    setShown(asked ? { ...NONE, loading: true, ...asked } : NONE);
  }

  useEffect(() => {
    if (!asked) return undefined;
    let current = true; // an answer to an earlier pick is dropped
    api.get(`${base}/lineage${lineageQuery(asked.node, asked.column)}`).then(
      (answer) => {
        if (!current) return;
        const path = answer.selected;
        overlay.set((value) => ({ ...value, lineage: lineageMarks(path) }));
        setShown({
          ...NONE,
          node: path.column.node,
          column: path.column.column,
          inputs: pathInputs(path, answer.nodes),
          conditions: path.conditions,
          upstream: upstreamLines(answer.upstream),
          stops: answer.upstream?.stops ?? [],
        });
      },
      (error) => {
        if (!current) return;
        overlay.set((value) => ({ ...value, lineage: null }));
        setShown({ ...NONE, ...asked, error: error.message ?? String(error) });
      },
    );
    return () => {
      current = false;
    };
  }, [api, base, overlay, asked]);

  useEffect(() => {
    if (!asked) return undefined;
    const onKey = (event) => {
      if (event.key === "Escape") clearLineage(overlay);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [overlay, asked]);

  return shown;
}
