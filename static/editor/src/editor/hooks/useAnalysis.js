// What the server found in the pipeline: its problems (on nodes, at fields, for the whole
// pipeline) and the columns at each node. A save answers both (`{revision, problems,
// schemas}`); the stored pipeline's come from one `GET …/schemas` (`{nodes, problems}`) when
// the editor opens and after a reload.

import { useCallback, useEffect, useRef, useState } from "react";
import { groupProblems } from "../../model/problems.js";

/**
 * `{pipelineProblems, schemas, showProblems, analysed, analyseStored}`: `analysed(answer)`
 * takes a save's answer; `analyseStored()` asks for the stored pipeline's; `schemas` is
 * `{node id: {inputs, outputs}}` once known.
 */
export function useAnalysis({ api, base, overlay }) {
  const [pipelineProblems, setPipelineProblems] = useState([]);
  const [schemas, setSchemas] = useState(null);
  // Counts the problems shown: a stored analysis answered after a save's is older, and dropped.
  const shown = useRef(0);

  const showProblems = useCallback(
    (problems) => {
      shown.current += 1;
      const grouped = groupProblems(problems);
      overlay.set((value) => ({ ...value, problems: grouped.byNode }));
      setPipelineProblems(grouped.pipeline);
    },
    [overlay],
  );

  const analysed = useCallback(
    (answer) => {
      showProblems(answer.problems);
      setSchemas(answer.schemas);
    },
    [showProblems],
  );

  const analyseStored = useCallback(() => {
    const asked = shown.current;
    api.get(`${base}/schemas`).then(
      (answer) => asked === shown.current && analysed({ problems: answer.problems, schemas: answer.nodes }),
      () => {},
    );
  }, [api, base, analysed]);

  useEffect(analyseStored, [analyseStored]);

  return { pipelineProblems, schemas, showProblems, analysed, analyseStored };
}
