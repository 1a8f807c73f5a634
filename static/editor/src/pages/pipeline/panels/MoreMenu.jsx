// The top bar's "More" menu: the actions used now and then (export, import, the graph as an
// image), kept out of the bar so that it fits on one line at 1280 px. A WAI-ARIA menu button:
// Enter, Space or the down arrow open it on its first item, the arrow keys, Home and End move,
// Escape closes it back onto the button; Tab or a click elsewhere closes it.

import { useEffect, useId, useRef, useState } from "react";

/** `items`: `{label, title?, onSelect}` for an action or `{label, href, download}` for a link. */
export default function MoreMenu({ items }) {
  const [open, setOpen] = useState(false);
  const button = useRef(null);
  const list = useRef(null);
  const id = useId();
  const entries = () => [...(list.current?.querySelectorAll('[role="menuitem"]') ?? [])];
  const focusAt = (index) => {
    const all = entries();
    all[(index + all.length) % all.length]?.focus();
  };
  const close = (refocus) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };
  const [firstFocus, setFirstFocus] = useState(0);
  useEffect(() => {
    if (open) focusAt(firstFocus);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when it opens
  }, [open]);
  useEffect(() => {
    if (!open) return undefined;
    const onDown = (event) => {
      if (!button.current?.parentElement.contains(event.target)) setOpen(false);
    };
    document.addEventListener("pointerdown", onDown);
    return () => document.removeEventListener("pointerdown", onDown);
  }, [open]);
  const openAt = (index) => {
    setFirstFocus(index);
    setOpen(true);
  };
  return (
    <div className="pw-more">
      <button
        type="button"
        ref={button}
        id={`${id}-button`}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={`${id}-menu`}
        title="Export, import, the graph as an image"
        onClick={() => (open ? close(false) : openAt(0))}
        onKeyDown={(event) => {
          if (event.key === "ArrowDown" || event.key === "ArrowUp") {
            event.preventDefault();
            openAt(event.key === "ArrowDown" ? 0 : -1);
          }
        }}
      >
        More ▾
      </button>
      {open ? (
        <div
          ref={list}
          id={`${id}-menu`}
          className="pw-menu-items"
          role="menu"
          aria-labelledby={`${id}-button`}
          onKeyDown={(event) => {
            const index = entries().indexOf(document.activeElement);
            const moves = { ArrowDown: index + 1, ArrowUp: index - 1, Home: 0, End: -1 };
            if (event.key in moves) {
              event.preventDefault();
              focusAt(moves[event.key]);
            } else if (event.key === "Escape") {
              event.preventDefault();
              close(true);
            } else if (event.key === "Tab") {
              setOpen(false);
            }
          }}
        >
          {items.map((item) =>
            item.href ? (
              <a
                key={item.label}
                role="menuitem"
                tabIndex={-1}
                href={item.href}
                target="_blank"
                rel="noreferrer"
                download={item.download}
                title={item.title}
                onClick={() => close(true)}
              >
                {item.label}
              </a>
            ) : (
              <button
                key={item.label}
                type="button"
                role="menuitem"
                tabIndex={-1}
                title={item.title}
                onClick={() => {
                  close(true);
                  item.onSelect();
                }}
              >
                {item.label}
              </button>
            ),
          )}
        </div>
      ) : null}
    </div>
  );
}
