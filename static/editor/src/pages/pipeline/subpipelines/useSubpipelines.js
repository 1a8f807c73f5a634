// The pipelines this one may use as sub-pipelines (`GET <base>/subpipelines`), loaded once
// per panel that shows them; an error leaves the list empty (the palette then has no group).

import { useEffect, useState } from "react";

const NONE = [];

export function useSubpipelines(api, base) {
  const [listing, setListing] = useState(NONE);
  useEffect(() => {
    if (!api || !base) return undefined;
    let live = true;
    api.get(`${base}/subpipelines`).then(
      (found) => live && setListing(found),
      () => live && setListing(NONE),
    );
    return () => {
      live = false;
    };
  }, [api, base]);
  return listing;
}
