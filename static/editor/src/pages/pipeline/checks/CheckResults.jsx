// A node's data test results in its run details: each check's status, message and sample
// rows; and the badge of counts its card shows.

import { checkCounts, countsText, worstStatus } from "./checkResults.js";
import "./checks.css";

/** The card's badge: how many checks passed, warned and failed in the shown run. */
export function ChecksBadge({ checks }) {
  const counts = checkCounts(checks);
  if (!counts) return null;
  const title = `Checks: ${counts.passed} passed, ${counts.warned} warned, ${counts.failed} failed`;
  return (
    <span className={`pw-badge pw-checks-badge is-${worstStatus(counts)}`} title={title}>
      {countsText(counts)}
    </span>
  );
}

/** Every check's result of the shown run, with its sample of offending rows. */
export function CheckResults({ checks }) {
  if (!Array.isArray(checks) || !checks.length) return null;
  return (
    <div className="pw-check-results" aria-label="Check results">
      <h4>Checks</h4>
      <ul>
        {checks.map((check, index) => (
          <li key={index} className={`is-${check.status}`}>
            <span className={`pw-badge pw-checks-badge is-${check.status}`}>{check.status}</span>{" "}
            {check.message}
            {check.sample ? <Sample sample={check.sample} /> : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

function Sample({ sample }) {
  return (
    <div className="pw-check-sample">
      <table>
        <thead>
          <tr>
            {sample.columns.map((name) => (
              <th key={name}>{name}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {sample.rows.map((row, index) => (
            <tr key={index}>
              {row.map((value, column) => (
                <td key={column}>{value === null ? "∅" : String(value)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
