// The operator palette: the catalog grouped by kind, with search. Items are dragged onto
// the canvas (or added at the centre with Enter / double-click).

import "./Palette.css";
import { memo, useState } from "react";
import { paletteGroups } from "../document/catalog.js";
import SubpipelineGroup from "../subpipelines/SubpipelineGroup.jsx";

export const OPERATOR_MIME = "application/x-pipewright-operator";
const ICONS = { input: "⇥", process: "⚙", output: "⇲" };

/** The palette; `onAdd(name)` adds an operator without dragging; `subpipelines` are the
 * pipelines this one may use (subpipelines/). */
function Palette({ items, onAdd, subpipelines = [] }) {
  const [search, setSearch] = useState("");
  const groups = paletteGroups(items, search);
  return (
    <aside className="pw-palette" aria-label="Operators">
      <div className="pw-palette-search">
        <input
          type="search"
          placeholder="Search operators"
          aria-label="Search operators"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
        />
      </div>
      <div className="pw-palette-groups">
        {groups.map((group) => (
          <section key={group.kind} className="pw-palette-group">
            <h2>{group.title}</h2>
            {group.items.map((item) => (
              <div
                key={item.name}
                className={`pw-palette-item pw-kind-${item.kind}`}
                data-operator={item.name}
                draggable
                role="button"
                tabIndex={0}
                title={`${item.description}${alsoCalled(item)}\n\nDrag onto the canvas, or press Enter to add.`}
                onDragStart={(event) => {
                  event.dataTransfer.setData(OPERATOR_MIME, item.name);
                  event.dataTransfer.effectAllowed = "copy";
                }}
                onDoubleClick={() => onAdd(item.name)}
                onKeyDown={(event) => {
                  if (event.key === "Enter") onAdd(item.name);
                }}
              >
                <span className="pw-palette-icon" aria-hidden="true">
                  {ICONS[item.kind]}
                </span>
                <span className="pw-palette-text">
                  <span className="pw-palette-title">{item.title}</span>
                  <span className="pw-palette-name">{item.name}</span>
                </span>
              </div>
            ))}
          </section>
        ))}
        <SubpipelineGroup
          listing={subpipelines}
          search={search}
          mime={OPERATOR_MIME}
          onAdd={onAdd}
        />
        {!groups.length ? <p className="pw-muted pw-pad">No operator matches “{search}”.</p> : null}
      </div>
      <p className="pw-palette-tip">
        Drag an operator onto the canvas, then connect an output (right) to an input (left).
      </p>
    </aside>
  );
}

/** The other names of an operator, for its tooltip ("Also called: crosstab, ..."). */
function alsoCalled(item) {
  return item.keywords?.length ? `\n\nAlso called: ${item.keywords.join(", ")}.` : "";
}

export default memo(Palette);
