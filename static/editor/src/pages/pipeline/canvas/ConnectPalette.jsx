// The palette that opens where a connection dragged from a port was let go on empty canvas:
// a search box over the operators that can take the connection (a combobox and its listbox:
// arrow keys move, Enter picks, Escape or a click elsewhere closes).

import { useEffect, useId, useMemo, useRef, useState } from "react";
import { paletteGroups } from "../document/catalog.js";

/** `items`: the operators offered; `at`: `{x, y}` in the canvas box; `side` of the port dragged. */
export default function ConnectPalette({ items, at, side, onPick, onClose }) {
  const [search, setSearch] = useState("");
  const [active, setActive] = useState(0);
  const box = useRef(null);
  const listId = useId();
  const matches = useMemo(
    () => paletteGroups(items, search).flatMap((group) => group.items),
    [items, search],
  );
  const current = Math.min(active, matches.length - 1);

  useEffect(() => {
    const away = (event) => {
      if (!box.current?.contains(event.target)) onClose();
    };
    document.addEventListener("pointerdown", away, true);
    return () => document.removeEventListener("pointerdown", away, true);
  }, [onClose]);

  useEffect(() => {
    box.current?.querySelector(`[data-index="${current}"]`)?.scrollIntoView({ block: "nearest" });
  }, [current]);

  const onKeyDown = (event) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((current + step + matches.length) % Math.max(matches.length, 1));
    } else if (event.key === "Enter") {
      event.preventDefault();
      if (matches[current]) onPick(matches[current].name);
    } else if (event.key === "Escape") {
      event.preventDefault();
      onClose();
    }
  };

  const title =
    side === "source" ? "Add a node fed by this output" : "Add a node feeding this input";
  return (
    <div
      className="pw-connect-palette"
      ref={box}
      style={{ left: at.x, top: at.y }}
      role="dialog"
      aria-label={title}
    >
      <input
        type="search"
        role="combobox"
        aria-label="Search operators to connect"
        aria-expanded="true"
        aria-controls={listId}
        aria-activedescendant={matches[current] ? `${listId}-${current}` : undefined}
        aria-autocomplete="list"
        placeholder={title}
        // The palette opens because the user let go of a connection: typing goes to it.
        autoFocus
        value={search}
        onChange={(event) => {
          setSearch(event.target.value);
          setActive(0);
        }}
        onKeyDown={onKeyDown}
      />
      <ul id={listId} role="listbox" aria-label="Operators">
        {matches.map((item, index) => (
          <li
            key={item.name}
            id={`${listId}-${index}`}
            data-index={index}
            data-connect-operator={item.name}
            role="option"
            aria-selected={index === current}
            className={`pw-connect-option pw-kind-${item.kind}${index === current ? " pw-active" : ""}`}
            onPointerEnter={() => setActive(index)}
            onClick={() => onPick(item.name)}
          >
            <span className="pw-connect-title">{item.title}</span>
            <span className="pw-connect-name">{item.name}</span>
          </li>
        ))}
      </ul>
      {!matches.length ? (
        <p className="pw-muted pw-connect-none">No operator matches “{search}”.</p>
      ) : null}
    </div>
  );
}
