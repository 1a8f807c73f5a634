// Two runs of the pipeline side by side (GET /api/runs/compare): a table of every node of
// either run with its status, rows in and out and duration in each, their changes, and the
// columns its stored results gained, lost or retyped; an output node's rows are compared by
// the key columns the user picks (RowChanges.jsx). Nodes only one run has are marked.

import "./compare.css";
import { useEffect, useMemo, useState } from "react";
import { formatDuration, timeAgo } from "../../../lib/format.js";
import {
  columnChangeLines,
  compareUrl,
  countChange,
  direction,
  durationChange,
  keyCandidates,
  nodeMark,
} from "./runComparison.js";
import RowChanges from "./RowChanges.jsx";

const MARK_WORDS = { added: "only in B", removed: "only in A", changed: "changed", same: "" };

/** `runs`: the pipeline's runs (newest first); `pair`: `{a, b}` run ids; `onPair(pair)`;
 * `onClose()`. */
export default function RunCompareView({ api, runs, pair, onPair, onClose, userName }) {
  const [answer, setAnswer] = useState(null);
  const [error, setError] = useState("");
  const [rowsOf, setRowsOf] = useState(null);

  // Another pair starts empty (set while rendering, before its answer is asked for).
  const [shownPair, setShownPair] = useState(pair);
  if (shownPair !== pair) {
    setShownPair(pair);
    setAnswer(null);
    setError("");
    setRowsOf(null);
  }
  useEffect(() => {
    let stale = false;
    api.get(compareUrl(pair.a, pair.b)).then(
      (loaded) => !stale && setAnswer(loaded),
      (failure) => !stale && setError(failure.message),
    );
    return () => {
      stale = true;
    };
  }, [api, pair]);

  const marks = useMemo(
    () =>
      answer ? Object.fromEntries(answer.nodes.map((entry) => [entry.id, nodeMark(entry)])) : null,
    [answer],
  );
  const picked = answer?.nodes.find((entry) => entry.id === rowsOf) ?? null;

  return (
    <section className="pw-compare-view" aria-label="Compare runs">
      <header className="pw-version-head">
        <h2>Compare runs</h2>
        <RunPicker
          label="A"
          value={pair.a}
          runs={runs}
          userName={userName}
          onChange={(a) => onPair({ ...pair, a })}
        />
        <span aria-hidden="true">→</span>
        <RunPicker
          label="B"
          value={pair.b}
          runs={runs}
          userName={userName}
          onChange={(b) => onPair({ ...pair, b })}
        />
        <span className="pw-topbar-spacer" />
        <button type="button" onClick={onClose}>
          Back to the editor
        </button>
      </header>
      {error ? (
        <p className="pw-error pw-pad" role="alert">
          {error}
        </p>
      ) : null}
      {answer ? (
        <RunsLine a={answer.a} b={answer.b} />
      ) : !error ? (
        <p className="pw-muted pw-pad">Comparing…</p>
      ) : null}
      <div className="pw-compare-body">
        {answer ? (
          <NodesTable answer={answer} marks={marks} rowsOf={rowsOf} onRows={setRowsOf} />
        ) : null}
        {picked ? (
          <RowChanges
            key={`${pair.a}-${pair.b}-${picked.id}`}
            api={api}
            pair={pair}
            entry={picked}
            candidates={keyCandidates(picked)}
            runs={answer}
            onClose={() => setRowsOf(null)}
          />
        ) : null}
      </div>
    </section>
  );
}

function RunPicker({ label, value, runs, userName, onChange }) {
  const id = `pw-compare-run-${label}`;
  return (
    <span className="pw-compare-picker">
      <label htmlFor={id}>Run {label}</label>
      <select id={id} value={value} onChange={(event) => onChange(Number(event.target.value))}>
        {runs.map((run) => (
          <option key={run.id} value={run.id}>
            #{run.number} · {run.status.replace("_", " ")} ·{" "}
            {run.started_by === userName ? "you" : (run.started_by ?? "unknown")} ·{" "}
            {timeAgo(run.created_at)}
          </option>
        ))}
      </select>
    </span>
  );
}

function RunsLine({ a, b }) {
  const line = (run) =>
    `#${run.number} (version ${run.revision ?? "?"}, ${run.status.replace("_", " ")}, ${formatDuration(run.duration_s)})`;
  return (
    <p className="pw-version-counts" role="status">
      A: {line(a)} → B: {line(b)} · run time {durationChange(a.duration_s, b.duration_s)}
    </p>
  );
}

function NodesTable({ answer, marks, rowsOf, onRows }) {
  return (
    <div className="pw-compare-table-box">
      <table className="pw-compare-table">
        <caption>
          Nodes of run #{answer.a.number} (A) and run #{answer.b.number} (B)
        </caption>
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">Status</th>
            <th scope="col">Rows in</th>
            <th scope="col">Rows out</th>
            <th scope="col">Duration</th>
            <th scope="col">Changes</th>
          </tr>
        </thead>
        <tbody>
          {answer.nodes.map((entry) => (
            <NodeRow
              key={entry.id}
              entry={entry}
              mark={marks[entry.id]}
              picked={rowsOf === entry.id}
              onRows={onRows}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function NodeRow({ entry, mark, picked, onRows }) {
  const { a, b } = entry;
  const changes = [
    ...entry.changes.map((field) => `${field} edited`),
    ...entry.results.flatMap((result) => columnChangeLines(result.column_changes)),
  ];
  const notes = entry.results.map((result) => result.note).filter(Boolean);
  const comparable = entry.kind === "output" && entry.presence === "both";
  return (
    <tr className={`is-${mark}`} data-node-id={entry.id} data-mark={mark}>
      <th scope="row">
        <span className="pw-compare-node">{entry.label || entry.id}</span>
        <span className="pw-muted"> {entry.operator}</span>
        {MARK_WORDS[mark] ? (
          <span className={`pw-version-mark is-${mark}`}>{MARK_WORDS[mark]}</span>
        ) : null}
        {comparable ? (
          <button
            type="button"
            className="pw-compare-rows-button"
            aria-pressed={picked}
            aria-label={`Compare rows of ${entry.label || entry.id}`}
            onClick={() => onRows(picked ? null : entry.id)}
          >
            Compare rows
          </button>
        ) : null}
      </th>
      <td>
        <Status figures={a} /> → <Status figures={b} />
      </td>
      <td className={`pw-compare-figure is-${direction(a?.rows_in, b?.rows_in)}`}>
        {countChange(a?.rows_in, b?.rows_in)}
      </td>
      <td className={`pw-compare-figure is-${direction(a?.rows_out, b?.rows_out)}`}>
        {entry.kind === "output" ? "–" : countChange(a?.rows_out, b?.rows_out)}
      </td>
      <td className="pw-compare-figure">{durationChange(a?.duration_s, b?.duration_s)}</td>
      <td>
        {changes.length || notes.length ? (
          <ul className="pw-compare-changes">
            {changes.map((line) => (
              <li key={line}>{line}</li>
            ))}
            {notes.map((note) => (
              <li key={note} className="pw-muted">
                {note}
              </li>
            ))}
          </ul>
        ) : (
          <span className="pw-muted">none</span>
        )}
      </td>
    </tr>
  );
}

function Status({ figures }) {
  if (!figures) return <span className="pw-muted">absent</span>;
  if (!figures.status) return <span className="pw-muted">not run</span>;
  return (
    <span className={`pw-badge pw-status-${figures.status}`} title={figures.error || undefined}>
      {figures.status.replace("_", " ")}
      {figures.cached ? " (reused)" : ""}
    </span>
  );
}
