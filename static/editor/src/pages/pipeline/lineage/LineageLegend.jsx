// The legend at the canvas's corner while a column's lineage is shown: which column, the
// inputs and columns it comes from, the pipelines upstream that wrote them (each a link that
// opens it with the column lit), the columns its rows depend on, and Clear.

import "./lineage.css";
import { useContext } from "react";
import { OverlayContext } from "../contexts.js";
import { clearLineage, inputLines } from "./lineage.js";
import { useLineage } from "./useLineage.js";

/** Nothing is drawn while no column is asked for. */
export default function LineageLegend({ api, base }) {
  const overlay = useContext(OverlayContext);
  const shown = useLineage({ api, base, overlay });
  if (!shown.node) return null;
  return (
    <aside className="pw-lineage-legend" aria-label="Column lineage">
      <div className="pw-lineage-head">
        <strong>
          Lineage of {shown.node} · {shown.column}
        </strong>
        <button
          type="button"
          onClick={() => clearLineage(overlay)}
          title="Stop highlighting (Escape)"
        >
          Clear
        </button>
      </div>
      {shown.loading ? <p className="pw-muted pw-small">Tracing the column…</p> : null}
      {shown.error ? (
        <p className="pw-error pw-small" role="alert">
          {shown.error}
        </p>
      ) : null}
      {!shown.loading && !shown.error ? (
        <>
          <p className="pw-small">
            <span className="pw-lineage-swatch" aria-hidden="true" /> nodes and edges the column
            came through
          </p>
          <p className="pw-small pw-lineage-label">From</p>
          <ul className="pw-small">
            {shown.inputs.length ? (
              inputLines(shown.inputs).map((line) => <li key={line}>{line}</li>)
            ) : (
              <li>no input column (made from none)</li>
            )}
          </ul>
          {shown.upstream.length || shown.stops.length ? (
            <>
              <p className="pw-small pw-lineage-label">Upstream pipelines</p>
              <ul className="pw-small pw-lineage-upstream">
                {shown.upstream.map((hop) => (
                  <li
                    key={hop.key}
                    style={{ marginLeft: `${(hop.depth - 1) * 12}px` }}
                    title={`${hop.input} reads ${hop.via}`}
                  >
                    {hop.input}: comes from <a href={hop.href}>{hop.from}</a>
                  </li>
                ))}
                {shown.stops.map((stop) => (
                  <li key={stop} className="pw-muted">
                    {stop}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          {shown.conditions.length ? (
            <>
              <p className="pw-small pw-lineage-label">Rows depend on</p>
              <ul className="pw-small">
                {shown.conditions.map((condition, index) => (
                  <li key={index}>
                    {condition.at}: {condition.why} (reads {condition.node}.{condition.column})
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </>
      ) : null}
    </aside>
  );
}
