// While a past run is viewed, the canvas shows that run's own document (as it ran: nodes since
// deleted appear, nodes added since do not), read-only; the editor's graph stays underneath
// as it was, unsaved edits included, until "Back to the editor". So does the pipeline that ran
// inside a sub-pipeline node (subpipelines/useRunInside.js), over the run it is looked at in.

import { useMemo } from "react";
import { documentToCanvas } from "../document/document.js";
import { useStore } from "../../../lib/store.js";

/** `{nodes, edges}` of the viewed run's document (or of the pipeline inside one of its
 * nodes), or null while neither is viewed. */
export function useViewedCanvas(overlay, typeOf) {
  const document = useStore(
    overlay,
    (value) => value.inside?.document ?? value.viewed?.document ?? null,
  );
  return useMemo(() => (document ? documentToCanvas(document, typeOf) : null), [document, typeOf]);
}
