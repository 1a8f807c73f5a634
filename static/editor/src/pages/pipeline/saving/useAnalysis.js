// What the server found in the pipeline: its problems (on nodes, at fields, for the whole
// pipeline) and the columns at each node. A save answers both (`{revision, problems,
// schemas}`); the stored pipeline's come from one `GET …/schemas` (`{nodes, problems}`) when
// the editor opens and after a reload; and 250 ms after each edit, `POST …/check` answers them
// for the unsaved document, so that feedback (and the column pickers) follow typing.

import { useCallback, useEffect, useRef, useState } from "react";
import { useLatest } from "../../../lib/useLatest.js";
import { canvasToDocument } from "../document/document.js";
import { groupProblems } from "../document/problems.js";
import { stableText } from "../../../lib/stableText.js";

const CHECK_DELAY_MS = 250;

/**
 * `{pipelineProblems, schemas, showProblems, analysed, analyseStored}`: `analysed(answer)`
 * takes a save's answer; `analyseStored()` asks for the stored pipeline's; `schemas` is
 * `{node id: {inputs, outputs}}` once known. `present` is the canvas' current graph
 * (`{meta, nodes, edges}`), checked after each change unless `readOnly`.
 */
export function useAnalysis({ api, base, overlay, present, readOnly = false }) {
  const [pipelineProblems, setPipelineProblems] = useState([]);
  const [schemas, setSchemas] = useState(null);
  // Numbers the analyses asked for (stored or checked): only the latest one's answer is shown,
  // so an answer that arrives after a newer question's is dropped.
  const asked = useRef(0);
  // What the last check was about (the document without positions), so that moves, selections
  // and edits undone before the delay ask nothing.
  const checked = useRef(null);
  const presentRef = useLatest(present);

  const showProblems = useCallback(
    (problems) => {
      const grouped = groupProblems(problems);
      overlay.set((value) => ({ ...value, problems: grouped.byNode }));
      setPipelineProblems(grouped.pipeline);
    },
    [overlay],
  );

  const show = useCallback(
    (answer) => {
      showProblems(answer.problems);
      setSchemas(answer.schemas);
    },
    [showProblems],
  );

  const check = useCallback(
    (document) => {
      checked.current = analysisKey(document);
      const ticket = ++asked.current;
      api.post(`${base}/check`, document).then(
        (answer) => ticket === asked.current && show(answer),
        () => {}, // a refused document: the next save says why
      );
    },
    [api, base, show],
  );

  /** A save's answer; the graph may have changed since it was sent, and is checked again then. */
  const analysed = useCallback(
    (answer) => {
      show(answer);
      const { meta, nodes, edges } = presentRef.current;
      const current = canvasToDocument(meta, nodes, edges);
      if (!readOnly && analysisKey(answer) !== analysisKey(current)) check(current);
    },
    [show, check, readOnly, presentRef],
  );

  /** Asks for the stored pipeline's analysis: `stored` (by default the graph as it is now,
   * as the editor opens) is what it describes, so that only a change from it is checked. */
  const analyseStored = useCallback(
    (stored) => {
      const { meta, nodes, edges } = presentRef.current;
      checked.current = analysisKey(stored ?? canvasToDocument(meta, nodes, edges));
      const ticket = ++asked.current;
      api.get(`${base}/schemas`).then(
        (answer) =>
          ticket === asked.current && show({ problems: answer.problems, schemas: answer.nodes }),
        () => {},
      );
    },
    [api, base, show, presentRef],
  );

  useEffect(() => analyseStored(), [analyseStored]);

  useEffect(() => {
    if (readOnly) return undefined;
    const timer = setTimeout(() => {
      const document = canvasToDocument(present.meta, present.nodes, present.edges);
      if (analysisKey(document) !== checked.current) check(document);
    }, CHECK_DELAY_MS);
    return () => clearTimeout(timer);
  }, [present, readOnly, check]);

  return { pipelineProblems, schemas, showProblems, analysed, analyseStored };
}

/** What an analysis of `document` depends on, as text: its nodes and edges but their places,
 * and its settings, with object keys sorted (a saved document comes back in the server's order). */
function analysisKey(document) {
  const nodes = (document.nodes ?? []).map(({ id, operator, params }) => [
    id,
    operator,
    params ?? {},
  ]);
  const edges = (document.edges ?? []).map((edge) => [
    edge.source,
    edge.source_port ?? "out",
    edge.target,
    edge.target_port ?? "in",
  ]);
  return stableText([nodes, edges, document.config ?? {}]);
}
