// Connecting by keyboard: Enter on a focused port opens this list of the ports the connection
// may end at (document/keyboardConnect.js orders them, nearest first). Arrow keys or Tab move,
// Enter connects, Escape (or a click elsewhere) closes; the focus goes back to the port.

import { createContext, useEffect, useId, useRef, useState } from "react";

/** `open(from, handleElement)` for a port's handle; null where ports cannot be connected. */
export const PortPickContext = createContext(null);

/** `targets`: `[{nodeId, port, label, connection}]`; `at`: `{x, y}` in the canvas box. */
export default function PortTargets({ title, targets, at, onPick, onClose }) {
  const [active, setActive] = useState(0);
  const list = useRef(null);
  const box = useRef(null);
  const listId = useId();

  useEffect(() => {
    list.current?.focus();
    const away = (event) => {
      if (!box.current?.contains(event.target)) onClose(false);
    };
    document.addEventListener("pointerdown", away, true);
    return () => document.removeEventListener("pointerdown", away, true);
  }, [onClose]);

  useEffect(() => {
    box.current?.querySelector(`[data-index="${active}"]`)?.scrollIntoView({ block: "nearest" });
  }, [active]);

  const onKeyDown = (event) => {
    const count = targets.length;
    const forward = event.key === "ArrowDown" || (event.key === "Tab" && !event.shiftKey);
    const back = event.key === "ArrowUp" || (event.key === "Tab" && event.shiftKey);
    if ((forward || back) && count) {
      event.preventDefault();
      setActive((active + (forward ? 1 : -1) + count) % count);
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      if (targets[active]) onPick(targets[active]);
    } else if (event.key === "Escape") {
      event.preventDefault();
      onClose(true);
    }
    event.stopPropagation(); // neither the canvas's shortcuts nor React Flow's keys
  };

  return (
    <div
      className="pw-connect-palette pw-port-targets"
      ref={box}
      style={{ left: at.x, top: at.y }}
      role="dialog"
      aria-label={title}
    >
      <p className="pw-port-targets-title">{title}</p>
      {targets.length ? (
        <ul
          id={listId}
          ref={list}
          role="listbox"
          tabIndex={0}
          aria-label="Connect to"
          aria-activedescendant={`${listId}-${active}`}
          onKeyDown={onKeyDown}
        >
          {targets.map((target, index) => (
            <li
              key={`${target.nodeId}.${target.port}`}
              id={`${listId}-${index}`}
              data-index={index}
              role="option"
              aria-selected={index === active}
              className={`pw-connect-option${index === active ? " pw-active" : ""}`}
              onPointerEnter={() => setActive(index)}
              onClick={() => onPick(target)}
            >
              {target.label}
            </li>
          ))}
        </ul>
      ) : (
        <p className="pw-muted pw-connect-none" tabIndex={0} ref={list} onKeyDown={onKeyDown}>
          No port can take this connection. Escape closes.
        </p>
      )}
    </div>
  );
}
