// While a past run is viewed, the canvas shows that run's own document (as it ran: nodes since
// deleted appear, nodes added since do not), read-only; the editor's graph stays underneath
// as it was, unsaved edits included, until "Back to the editor".

import { useMemo } from "react";
import { documentToCanvas } from "../document/document.js";
import { useStore } from "../../../lib/store.js";

/** `{nodes, edges}` of the viewed run's document, or null while no past run is viewed. */
export function useViewedCanvas(overlay, typeOf) {
  const document = useStore(overlay, (value) => value.viewed?.document ?? null);
  return useMemo(() => (document ? documentToCanvas(document, typeOf) : null), [document, typeOf]);
}
