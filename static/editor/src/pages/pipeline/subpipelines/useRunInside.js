// Opening the run inside a sub-pipeline node: the pipeline that ran there, from the server
// (`GET /api/runs/<id>/inside/<path>`), over the run the canvas shows (a past one picked from
// the history, else the live one, whose events keep arriving); and back to the outer pipeline.

import { useCallback } from "react";
import { SEPARATOR } from "./subpipelines.js";
import { insidePath } from "./inside.js";
import { beginMove } from "../overlay.js";

/** A past run's details (`GET /api/runs/<id>`) with the document as drawn when its own has
 * sub-pipelines inlined (`GET /api/runs/<id>/drawn`): its sub-pipeline nodes' cards then add
 * up their inlined nodes, and open the run inside. Kept as they are if that cannot be had. */
export async function drawnDetails(api, details) {
  if (!Object.keys(details.nodes ?? {}).some((id) => id.includes(SEPARATOR))) return details;
  try {
    const { document } = await api.get(`/api/runs/${encodeURIComponent(details.id)}/drawn`);
    return { ...details, document };
  } catch {
    return details;
  }
}

/** `{open(path), openNode(id), close()}`; `openNode` opens a sub-pipeline node of the canvas
 * shown (the outer pipeline's, or the inner one's when sub-pipelines nest). */
export function useRunInside({ api, overlay, toasts }) {
  const open = useCallback(
    async (path) => {
      const run = overlay.get().viewed ?? overlay.get().live;
      if (run.runId === null) return;
      const settle = beginMove(overlay);
      try {
        const found = await api.get(
          `/api/runs/${encodeURIComponent(run.runId)}/inside/${encodeURIComponent(path)}`,
        );
        settle((value) => ({ ...value, inside: found }));
      } catch (error) {
        toasts.show(`Could not show the run inside: ${error.message}`, { kind: "error" });
      }
    },
    [api, overlay, toasts],
  );
  const openNode = useCallback(
    (id) => open(insidePath(overlay.get().inside?.prefix ?? "", id)),
    [open, overlay],
  );
  const close = useCallback(
    () => beginMove(overlay)((value) => ({ ...value, inside: null })),
    [overlay],
  );
  return { open, openNode, close };
}
