// A node's preview: saves first (the server previews the saved pipeline), asks for its first
// rows, and while the request waits in the server's line, asks every second where it waits.

import { useCallback, useState } from "react";

const PREVIEW_ROWS = 50;
// While a preview's request is held in the server's line, how often to ask where it waits.
const LINE_POLL_MS = 1000;

/** `{preview, runPreview(node)}`: `preview` is `{node, loading, place}`, `{node, result}` or
 * `{node, error}` (null before the first); `onStart()` opens where it is shown. */
export function usePreview({ api, base, saveFirst, onStart }) {
  const [preview, setPreview] = useState(null);
  const runPreview = useCallback(
    async (node) => {
      onStart();
      setPreview({ node, loading: true });
      if (!(await saveFirst())) {
        setPreview({ node, error: "the pipeline is not saved" });
        return;
      }
      const inLine = window.setInterval(() => {
        api.get("/api/previews/line").then(
          ({ place }) =>
            setPreview((shown) =>
              shown?.node === node && shown.loading ? { ...shown, place } : shown,
            ),
          () => {},
        );
      }, LINE_POLL_MS);
      try {
        const result = await api.post(`${base}/preview`, { node, limit: PREVIEW_ROWS });
        setPreview({ node, result });
      } catch (error) {
        setPreview({ node, error: error.message });
      } finally {
        window.clearInterval(inLine);
      }
    },
    [api, base, saveFirst, onStart],
  );
  return { preview, runPreview };
}
