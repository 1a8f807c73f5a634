// The Data tab's requests: the page of rows for the current view, and the statistics once
// they are asked for. A newer request makes an older one's answer be ignored.

import { useEffect, useState } from "react";
import { resultUrl } from "./resultData.js";

/** `{loading, error, value}` of `GET url` (nothing while `url` is null). */
function useAnswer(api, url) {
  const [answer, setAnswer] = useState({
    loading: Boolean(url),
    error: null,
    value: null,
    url: null,
  });
  // A new address is loading from the render that asks for it (the last value stays shown).
  const [asked, setAsked] = useState(url);
  if (asked !== url) {
    setAsked(url);
    if (url) setAnswer((old) => ({ ...old, loading: true, error: null }));
  }
  useEffect(() => {
    if (!url) return undefined;
    let current = true;
    api.get(url).then(
      (value) => current && setAnswer({ loading: false, error: null, value, url }),
      (error) => current && setAnswer({ loading: false, error, value: null, url }),
    );
    return () => {
      current = false;
    };
  }, [api, url]);
  return answer;
}

/** The page of `view` (`{port, offset, limit, sort, filter}`) of `node` in run `runId`, and
 * its statistics while `withStats` once the page says the result is stored (a recomputed one
 * has none). */
export function useResultData(api, runId, node, view, withStats) {
  const ready = runId !== null && runId !== undefined && node;
  const page = useAnswer(api, ready ? resultUrl(runId, node, "data", view) : null);
  const stored = page.value?.source === "stored";
  const stats = useAnswer(
    api,
    ready && withStats && stored ? resultUrl(runId, node, "stats", view) : null,
  );
  return { page, stats };
}
