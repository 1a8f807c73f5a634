// What the server found in the saved pipeline: its problems (on nodes, at fields, for the
// whole pipeline) and the columns at each node. A save answers both (`problems`, `schemas`);
// for a server that does not yet, the editor asks `validate` and `schemas` itself (the
// fallbacks below, marked, which the lead may remove once every server answers them).

import { useCallback, useEffect, useState } from "react";
import { groupProblems } from "../../model/problems.js";

/**
 * `{pipelineProblems, schemas, showProblems, validate, analysed}`: `analysed(answer)` takes
 * a save's or a load's answer; `schemas` is `{revision, nodes}` once known.
 */
export function useAnalysis({ api, base, overlay, revision, selectedId }) {
  const [pipelineProblems, setPipelineProblems] = useState([]);
  const [schemas, setSchemas] = useState(null);

  const showProblems = useCallback(
    (problems) => {
      const grouped = groupProblems(problems);
      overlay.set((value) => ({ ...value, problems: grouped.byNode }));
      setPipelineProblems(grouped.pipeline);
    },
    [overlay],
  );

  const validate = useCallback(() => {
    api.post(`${base}/validate`, {}).then(
      (answer) => showProblems(answer.problems),
      () => {},
    );
  }, [api, base, showProblems]);

  const analysed = useCallback(
    (answer) => {
      if (Array.isArray(answer.problems)) showProblems(answer.problems);
      else validate(); // fallback: a save that does not answer its problems
      if (answer.schemas) setSchemas({ revision: answer.revision, nodes: answer.schemas.nodes ?? answer.schemas });
    },
    [showProblems, validate],
  );

  useEffect(validate, [validate]);

  // Fallback: a save that does not answer its schemas; asked when a node is selected.
  useEffect(() => {
    if (!selectedId || schemas?.revision === revision) return undefined;
    let stale = false;
    api.get(`${base}/schemas`).then(
      (answer) => !stale && setSchemas({ revision, nodes: answer.nodes }),
      () => {},
    );
    return () => {
      stale = true;
    };
  }, [api, base, selectedId, revision, schemas]);

  return { pipelineProblems, schemas, showProblems, validate, analysed };
}
