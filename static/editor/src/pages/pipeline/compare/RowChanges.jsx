// An output node's rows in two runs, matched by the key columns the user ticks: how many were
// added, removed and changed (and in which columns), with the first rows of each kind. Keys
// that repeat, and results no longer kept, are said as the server words them.

import { useState } from "react";
import { formatCount } from "../../../lib/format.js";
import { cellText, compareUrl, rowCountsLine } from "./runComparison.js";

/** `entry`: the output node's comparison; `candidates`: the column names it may be keyed by. */
export default function RowChanges({ api, pair, entry, candidates, runs, onClose }) {
  const [keys, setKeys] = useState(() =>
    candidates.includes("id") ? ["id"] : candidates.slice(0, 1),
  );
  const [state, setState] = useState({ phase: "idle" });
  const name = entry.label || entry.id;

  const compare = async (event) => {
    event.preventDefault();
    setState({ phase: "loading" });
    try {
      const answer = await api.get(compareUrl(pair.a, pair.b, keys, entry.id));
      const node = answer.nodes.find((item) => item.id === entry.id);
      setState({ phase: "done", rows: node.rows });
    } catch (error) {
      setState({ phase: "failed", message: error.message });
    }
  };
  const toggle = (column) =>
    setKeys((old) =>
      old.includes(column) ? old.filter((item) => item !== column) : [...old, column],
    );

  return (
    <section className="pw-compare-rows" aria-label={`Rows of ${name}`}>
      <header>
        <h3>Rows of {name}</h3>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </header>
      {candidates.length ? (
        <form onSubmit={compare}>
          <fieldset>
            <legend>Key columns: they identify a row in both runs</legend>
            {candidates.map((column) => (
              <label
                key={column}
                className="pw-compare-key"
                title={
                  column.includes(",")
                    ? "A column whose name holds a comma cannot be a key"
                    : undefined
                }
              >
                <input
                  type="checkbox"
                  checked={keys.includes(column)}
                  onChange={() => toggle(column)}
                  disabled={column.includes(",")}
                />
                {column}
              </label>
            ))}
          </fieldset>
          <button
            type="submit"
            className="pw-primary"
            disabled={!keys.length || state.phase === "loading"}
          >
            {state.phase === "loading" ? "Comparing…" : "Compare rows"}
          </button>
        </form>
      ) : (
        <p className="pw-muted">
          Neither run kept this output's rows (data not kept), so they cannot be compared.
        </p>
      )}
      {state.phase === "failed" ? (
        <p className="pw-error" role="alert">
          {state.message}
        </p>
      ) : null}
      {state.phase === "done" ? (
        <Outcome rows={state.rows} a={runs.a.number} b={runs.b.number} />
      ) : null}
    </section>
  );
}

function Outcome({ rows, a, b }) {
  if (rows.status !== "compared") {
    return (
      <p className="pw-error" role="alert">
        {rows.message}
      </p>
    );
  }
  const byColumn = Object.entries(rows.changed_by_column);
  return (
    <div className="pw-compare-outcome">
      <p role="status">
        <strong>{rowCountsLine(rows)}</strong>
        {byColumn.length
          ? ` — changed: ${byColumn.map(([column, count]) => `${column} (${formatCount(count)})`).join(", ")}`
          : ""}
      </p>
      <RowsTable caption={`Added in #${b}`} rows={rows.samples.added} total={rows.added} />
      <RowsTable caption={`Removed since #${a}`} rows={rows.samples.removed} total={rows.removed} />
      <ChangedTable rows={rows.samples.changed} total={rows.changed} keys={rows.keys} a={a} b={b} />
    </div>
  );
}

function shownOf(rows, total) {
  return total > rows.length ? ` (first ${rows.length} of ${formatCount(total)})` : "";
}

function RowsTable({ caption, rows, total }) {
  if (!rows.length) return null;
  const columns = Object.keys(rows[0]);
  return (
    <table className="pw-compare-sample">
      <caption>
        {caption}
        {shownOf(rows, total)}
      </caption>
      <thead>
        <tr>
          {columns.map((column) => (
            <th scope="col" key={column}>
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, index) => (
          <tr key={index}>
            {columns.map((column) => (
              <td key={column}>
                <Value value={row[column]} />
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ChangedTable({ rows, total, keys, a, b }) {
  if (!rows.length) return null;
  return (
    <table className="pw-compare-sample">
      <caption>Changed{shownOf(rows, total)}</caption>
      <thead>
        <tr>
          {keys.map((key) => (
            <th scope="col" key={key}>
              {key}
            </th>
          ))}
          <th scope="col">Column</th>
          <th scope="col">#{a}</th>
          <th scope="col">#{b}</th>
        </tr>
      </thead>
      <tbody>
        {rows.flatMap((row, index) =>
          Object.entries(row.changes).map(([column, values]) => (
            <tr key={`${index}:${column}`}>
              {keys.map((key) => (
                <td key={key}>
                  <Value value={row.key[key]} />
                </td>
              ))}
              <th scope="row">{column}</th>
              <td className="is-removed">
                <Value value={values.a} />
              </td>
              <td className="is-added">
                <Value value={values.b} />
              </td>
            </tr>
          )),
        )}
      </tbody>
    </table>
  );
}

function Value({ value }) {
  return value === null || value === undefined ? (
    <em className="pw-muted">null</em>
  ) : (
    cellText(value)
  );
}
