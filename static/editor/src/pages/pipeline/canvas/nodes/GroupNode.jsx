// A group's frame: a label bar (drag it to move the group's nodes; double click or "Rename"
// to rename; "Ungroup" removes the frame and keeps the nodes) over a light box around them.
// The box itself lets clicks through, so that the nodes and the canvas inside stay usable.

import "./items.css";
import { memo, useContext, useState } from "react";
import { CanvasItemsContext } from "../../contexts.js";

function GroupNode({ data, selected }) {
  const items = useContext(CanvasItemsContext);
  const { group } = data;
  const [draft, setDraft] = useState(null);
  const name = group.label || group.id;
  const rename = () => {
    if (!items.readOnly) setDraft(group.label);
  };
  const finish = () => {
    if (draft !== null && draft !== group.label) items.rename(group.id, draft.trim());
    setDraft(null);
  };
  return (
    <div
      className={`pw-group${selected ? " pw-selected" : ""}`}
      data-group-id={group.id}
      style={data.size}
    >
      <div className="pw-group-head">
        {draft !== null ? (
          <input
            className="pw-group-name nodrag"
            aria-label="Group name"
            autoFocus
            value={draft}
            maxLength={200}
            onChange={(event) => setDraft(event.target.value)}
            onBlur={finish}
            onKeyDown={(event) => {
              event.stopPropagation();
              if (event.key === "Enter") event.currentTarget.blur();
              if (event.key === "Escape") setDraft(null);
            }}
          />
        ) : (
          <span className="pw-group-label" onDoubleClick={rename}>
            {name}
          </span>
        )}
        {!items.readOnly && draft === null ? (
          <>
            <button
              type="button"
              className="pw-group-button nodrag"
              aria-label={`Rename group ${name}`}
              title="Rename"
              onClick={rename}
            >
              ✎
            </button>
            <button
              type="button"
              className="pw-group-button nodrag"
              aria-label={`Ungroup ${name}`}
              title="Ungroup (the nodes stay)"
              onClick={() => items.ungroup(group.id)}
            >
              ✕
            </button>
          </>
        ) : null}
      </div>
    </div>
  );
}

export default memo(GroupNode);
