// The pipeline's history of versions (who saved what, when): picking one opens it beside the
// pipeline as it is now, to compare and restore (VersionView).

import "../../../ui/menu.css";
import { timeAgo } from "../../../lib/format.js";
import { useLoadedMenu } from "../../../ui/useLoadedMenu.js";

/** A menu button; `load()` fetches `{items, current}`, `onPick(item, items)` opens one. */
export default function VersionsMenu({ load, onPick, viewed, userName }) {
  const { open, setOpen, answer, error, box } = useLoadedMenu(load);
  const items = answer?.items;
  return (
    <div className="pw-menu" ref={box}>
      <button
        type="button"
        aria-expanded={open}
        aria-haspopup="menu"
        onClick={() => setOpen(!open)}
        title="Earlier versions of this pipeline: compare and restore"
      >
        Versions
      </button>
      {open ? (
        <div className="pw-menu-items pw-versions" role="menu" aria-label="Versions">
          {error ? <p className="pw-error pw-pad">{error}</p> : null}
          {!items && !error ? <p className="pw-muted pw-pad">Loading…</p> : null}
          {items?.map((item, index) => (
            <button
              type="button"
              role="menuitem"
              key={item.revision}
              className={viewed === item.revision ? "is-current" : ""}
              onClick={() => {
                onPick(item, items);
                setOpen(false);
              }}
            >
              <span className="pw-version-number">{index === 0 ? "Now" : `#${item.revision}`}</span>
              <span className="pw-version-summary" title={item.summary}>
                {item.summary}
              </span>
              <span className="pw-muted">
                {item.author ? (item.author === userName ? "you" : item.author) : "unknown"} ·{" "}
                {timeAgo(item.saved_at)}
              </span>
            </button>
          ))}
        </div>
      ) : null}
    </div>
  );
}
