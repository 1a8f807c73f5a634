// A menu whose items come from the server: loaded each time it opens (so they are fresh), an
// answer that arrives after it closed is dropped, and a click outside closes it.

import { useEffect, useRef, useState } from "react";

/** `{open, setOpen, answer, error, box}`: `load()` resolves the menu's data; `box` is the ref
 * of the element a click must land outside of to close it. */
export function useLoadedMenu(load) {
  const [open, setOpen] = useState(false);
  const [answer, setAnswer] = useState(null);
  const [error, setError] = useState("");
  const box = useRef(null);
  // Opening clears the last error (from the render that opens it); the effect then loads.
  const [wasOpen, setWasOpen] = useState(open);
  if (wasOpen !== open) {
    setWasOpen(open);
    if (open) setError("");
  }
  useEffect(() => {
    if (!open) return undefined;
    let stale = false;
    load().then(
      (loaded) => !stale && setAnswer(loaded),
      (failure) => !stale && setError(failure.message),
    );
    const outside = (event) => {
      if (!box.current?.contains(event.target)) setOpen(false);
    };
    document.addEventListener("mousedown", outside);
    return () => {
      stale = true;
      document.removeEventListener("mousedown", outside);
    };
  }, [open, load]);
  return { open, setOpen, answer, error, box };
}
