// A modal dialog: a labelled box over a dimmed page; Escape or the backdrop closes it.

import "./dialogs.css";
import { useEffect, useRef } from "react";

/** `title` names the dialog; `onClose` is called on Escape and on a click outside. */
export default function Dialog({ title, onClose, children, wide = false }) {
  const box = useRef(null);
  useEffect(() => {
    const previous = document.activeElement;
    const first = box.current?.querySelector("input, select, textarea, button");
    first?.focus();
    const onKey = (event) => {
      if (event.key === "Escape") onClose();
    };
    window.addEventListener("keydown", onKey);
    return () => {
      window.removeEventListener("keydown", onKey);
      previous?.focus?.();
    };
  }, [onClose]);
  return (
    <div
      className="pw-backdrop"
      onMouseDown={(event) => event.target === event.currentTarget && onClose()}
    >
      <div
        className={`pw-dialog${wide ? " pw-dialog-wide" : ""}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby="pw-dialog-title"
        ref={box}
      >
        <h2 id="pw-dialog-title">{title}</h2>
        {children}
      </div>
    </div>
  );
}
