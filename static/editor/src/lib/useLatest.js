// A ref that holds the latest value a component rendered with, for callbacks that must stay
// the same function (React Flow's handlers, the editor's commands) yet read what is current.

import { useLayoutEffect, useRef } from "react";

/** A ref whose `current` is `value` of the last committed render (set before the browser
 * paints, so every event handler and effect sees it). */
export function useLatest(value) {
  const ref = useRef(value);
  useLayoutEffect(() => {
    ref.current = value;
  });
  return ref;
}
