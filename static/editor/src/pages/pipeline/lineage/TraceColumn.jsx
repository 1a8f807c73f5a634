// A node panel's column picker: choose one of the node's columns and show its lineage on the
// canvas.

import { useContext, useState } from "react";
import { OverlayContext } from "../contexts.js";
import { askLineage, traceableColumns } from "./lineage.js";

/** `node`: the node's id; `schemas`: its inferred schemas (none: nothing to pick yet). */
export default function TraceColumn({ node, schemas }) {
  const overlay = useContext(OverlayContext);
  const columns = traceableColumns(schemas);
  const [picked, setPicked] = useState("");
  if (!columns.length) return null;
  const column = columns.includes(picked) ? picked : columns[0];
  return (
    <div className="pw-lineage-trace">
      <label className="pw-small" htmlFor={`pw-trace-${node}`}>
        Where does a column come from?
      </label>
      <div className="pw-lineage-trace-row">
        <select
          id={`pw-trace-${node}`}
          value={column}
          onChange={(event) => setPicked(event.target.value)}
        >
          {columns.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        <button type="button" onClick={() => askLineage(overlay, node, column)}>
          Show lineage
        </button>
      </div>
    </div>
  );
}
