// A past run, an earlier version and a comparison of runs are never shown at once: opening
// one closes the others (a comparison keeps the run viewed under it).

import { useCallback, useState } from "react";
import { defaultPair } from "./runComparison.js";

/**
 * `{comparing, showRun, showVersion, compareRuns, comparePair, closeComparison}` over `runs`
 * (runs/useRunControls.js) and `versions` (versions/useVersions.js); `comparing` is
 * `{runs, pair}` while two runs are compared, else null. `viewedId` is the run viewed now.
 */
export function useHistoryViews({ runs, versions, viewedId }) {
  const { pickRun, backToLive } = runs;
  const { pick: pickVersion, close: closeVersion } = versions;
  const [comparing, setComparing] = useState(null);
  const showRun = useCallback(
    (run) => {
      closeVersion();
      setComparing(null);
      pickRun(run);
    },
    [closeVersion, pickRun],
  );
  const showVersion = useCallback(
    (item, items) => {
      backToLive();
      setComparing(null);
      pickVersion(item, items);
    },
    [backToLive, pickVersion],
  );
  const compareRuns = useCallback(
    (listed) => {
      closeVersion();
      setComparing({ runs: listed, pair: defaultPair(listed, viewedId) });
    },
    [closeVersion, viewedId],
  );
  const comparePair = useCallback((pair) => setComparing((old) => ({ ...old, pair })), []);
  const closeComparison = useCallback(() => setComparing(null), []);
  return { comparing, showRun, showVersion, compareRuns, comparePair, closeComparison };
}
