// A node's run details in the side panel (its status, rows, rates, the backend it ran on and
// why pandas when DuckDB could not, the error and traceback) and the columns at its ports.

import {
  formatCount,
  formatDuration,
  formatRate,
  rowsIn,
  rowsWritten,
} from "../../../lib/format.js";
import { StatusBadge } from "../canvas/nodes/NodeCard.jsx";
import { CheckResults } from "../checks/CheckResults.jsx";

export function RunDetails({ run, kind, sets }) {
  const metrics = run.metrics ?? {};
  const incoming = rowsIn(metrics);
  const failed = sets.failures.has(run.status);
  // Rows counted so far are rows out only while the node works: a failed or cancelled node
  // passed none on.
  const rowsOut = metrics.rows_out ?? (sets.working.has(run.status) ? run.rows : null);
  return (
    <section className={`pw-section pw-run-details${failed ? " is-failed" : ""}`}>
      <div className="pw-section-head">
        <h3>Last run</h3>
        <StatusBadge status={run.status} working={sets.working} cached={metrics.cached === true} />
      </div>
      <dl className="pw-metrics">
        <dt>Rows in</dt>
        <dd>{formatCount(incoming)}</dd>
        {kind === "output" ? (
          <>
            <dt>Rows written</dt>
            <dd>{formatCount(rowsWritten(metrics, run.status))}</dd>
          </>
        ) : (
          <>
            <dt>Rows out</dt>
            <dd>{formatCount(rowsOut)}</dd>
          </>
        )}
        <dt>Duration</dt>
        <dd>{formatDuration(metrics.duration_s)}</dd>
        <dt>Speed</dt>
        <dd>{formatRate(incoming ?? metrics.rows_out, metrics.duration_s) ?? "–"}</dd>
        {metrics.backend ? (
          <>
            <dt>Ran on</dt>
            <dd>{metrics.backend}</dd>
          </>
        ) : null}
        {run.attempt > 1 ? (
          <>
            <dt>Attempts</dt>
            <dd>{run.attempt}</dd>
          </>
        ) : null}
      </dl>
      {metrics.fallback ? (
        <p className="pw-small pw-run-fallback">On pandas, not DuckDB: {metrics.fallback}</p>
      ) : null}
      <CheckResults checks={metrics.checks} />
      {run.error ? (
        <div className="pw-run-error" role="alert">
          <strong>Error:</strong> {run.error}
        </div>
      ) : null}
      {run.traceback ? (
        <details className="pw-traceback">
          <summary>Traceback</summary>
          <pre>{run.traceback}</pre>
        </details>
      ) : null}
    </section>
  );
}

export function Columns({ schemas }) {
  if (!schemas)
    return (
      <p className="pw-muted pw-small">
        Columns appear once the node's inputs are connected and can be read.
      </p>
    );
  const inputs = Object.entries(schemas.inputs ?? {});
  const outputs = Object.entries(schemas.outputs ?? {});
  return (
    <div className="pw-columns">
      {inputs.map(([port, value]) => (
        <ColumnList key={`in-${port}`} title={`In · ${port}`} columns={value} />
      ))}
      {outputs.map(([port, value]) => (
        <ColumnList key={`out-${port}`} title={`Out · ${port}`} columns={value} />
      ))}
      {!inputs.length && !outputs.length ? (
        <p className="pw-muted pw-small">No columns known yet.</p>
      ) : null}
    </div>
  );
}

function ColumnList({ title, columns }) {
  const lists = Array.isArray(columns?.[0]) ? columns : [columns];
  return (
    <div className="pw-column-list">
      <h4>{title}</h4>
      {lists.map((list, index) =>
        list ? (
          <table key={index} className="pw-table pw-table-compact">
            <tbody>
              {list.map((column) => (
                <tr key={column.name}>
                  <td>{column.name}</td>
                  <td className="pw-type">
                    {column.type}
                    {column.nullable ? " · nullable" : ""}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p key={index} className="pw-muted pw-small">
            not known (connect an input)
          </p>
        ),
      )}
    </div>
  );
}
