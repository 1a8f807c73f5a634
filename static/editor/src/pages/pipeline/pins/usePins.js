// The pipeline's pins (docs/pins.md): loaded once, then after each change; `overlay.pins` holds
// the pinned node ids for the canvas' badges, the hook's value feeds the Data tab's controls.

import { useCallback, useEffect, useMemo, useState } from "react";

const NONE = new Map();

/** `{pins: Map(node → pin), readOnly, pinFromRun(node, runId), pinRows(node, rows), unpin(node)}`;
 * each change resolves once the pins are loaded again, and throws the server's `ApiError`. */
export function usePins({ api, base, overlay, readOnly }) {
  const [pins, setPins] = useState(NONE);
  const load = useCallback(
    () =>
      api.get(`${base}/pins`).then(
        (answer) => {
          const found = new Map(answer.items.map((pin) => [pin.node, pin]));
          setPins(found);
          overlay.set((value) => ({ ...value, pins: new Set(found.keys()) }));
        },
        () => {}, // no pins shown: runs use them all the same
      ),
    [api, base, overlay],
  );
  useEffect(() => {
    load();
  }, [load]);
  return useMemo(
    () => ({
      pins,
      readOnly,
      pinFromRun: (node, run) => api.post(`${base}/pins`, { node, run }).then(load),
      pinRows: (node, rows) => api.post(`${base}/pins`, { node, rows }).then(load),
      unpin: (node) => api.del(`${base}/pins/${encodeURIComponent(node)}`).then(load),
    }),
    [api, base, load, pins, readOnly],
  );
}
