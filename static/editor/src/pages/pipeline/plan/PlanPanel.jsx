// The bottom panel's plan tab: the backend to plan for, the legend of the marks on the
// cards, the nodes left to pandas under a backend that lowers (which column, why), the
// choices tuned from past runs with the figure each came from, and `explain`'s text; a
// refused plan shows the server's message and problems.

import "./plan.css";
import { planClasses, reuseRows } from "./plan.js";
import { describeProblem } from "../document/problems.js";

const BACKENDS = [
  ["", "As the document says"],
  ["auto", "auto"],
  ["duckdb", "duckdb"],
  ["pandas", "pandas"],
];

/** `view` is usePlanView's answer; `dirty`: there are unsaved changes, not in the plan;
 * `labels`: the canvas' labels by node id. */
export default function PlanPanel({ view, dirty, labels }) {
  const { shown, backend, setBackend } = view;
  return (
    <div className="pw-plan">
      <div className="pw-logs-filter pw-plan-bar">
        <label htmlFor="pw-plan-backend">Backend</label>
        <select
          id="pw-plan-backend"
          value={backend}
          onChange={(event) => setBackend(event.target.value)}
        >
          {BACKENDS.map(([value, title]) => (
            <option key={value} value={value}>
              {title}
            </option>
          ))}
        </select>
        <ul className="pw-plan-legend" aria-label="Legend">
          {shown.legend.map((entry) => (
            <li key={entry.label} title={entry.title}>
              <span className={`pw-plan-swatch${planClasses(entry)}`} aria-hidden="true" />
              {entry.label} ({entry.count})
            </li>
          ))}
        </ul>
        {shown.loading ? <span className="pw-muted pw-small">Planning…</span> : null}
      </div>
      {dirty ? (
        <p className="pw-muted pw-small pw-pad">
          This is the plan of the saved pipeline: save to see your changes in it.
        </p>
      ) : null}
      <PlanBody shown={shown} labels={labels} />
    </div>
  );
}

function PlanBody({ shown, labels }) {
  if (shown.error) {
    const problems = shown.error.body?.problems ?? [];
    return (
      <div className="pw-pad" role="alert">
        <p className="pw-error">No plan: {shown.error.message}</p>
        {problems.length > 1 ? (
          <ul className="pw-plan-problems">
            {problems.map((problem, index) => (
              <li key={index}>{describeProblem(problem, true)}</li>
            ))}
          </ul>
        ) : null}
      </div>
    );
  }
  if (!shown.plan) return <p className="pw-muted pw-pad">Planning…</p>;
  const fallbacks = Object.entries(shown.plan.fallbacks ?? {});
  const tuning = shown.plan.tuning ?? [];
  const rows = reuseRows(shown.plan, labels);
  return (
    <>
      {rows.length ? (
        <table className="pw-plan-reuse" aria-label="What a run would do">
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">A run</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id} data-verdict={row.verdict.split(" ")[0]}>
                <th scope="row" title={row.id}>
                  {row.label}
                </th>
                <td className="pw-plan-verdict">{row.verdict}</td>
                <td>{row.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {fallbacks.length ? (
        <ul className="pw-plan-fallbacks pw-pad" aria-label="On pandas, not DuckDB">
          {fallbacks.map(([id, why]) => (
            <li key={id}>
              <strong>{id}</strong> runs on pandas, not DuckDB: {why}
            </li>
          ))}
        </ul>
      ) : null}
      {tuning.length ? (
        <section className="pw-plan-tuning pw-pad" aria-label="Tuning from past runs">
          <h3>Tuning from past runs</h3>
          <ul>
            {tuning.map((one, index) => (
              <li key={index}>
                <strong>{one.choice}</strong>: {one.because}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <pre className="pw-plan-text">{shown.plan.text}</pre>
    </>
  );
}
