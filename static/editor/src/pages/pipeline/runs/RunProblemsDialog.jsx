// What the Run button opens while the editor shows problems: the list a run would be refused
// for, each showing its node on the canvas, and "Run anyway" (the nodes with problems and
// everything below them are left out; the rest runs).

import "./runs.css";
import Dialog from "../../../ui/Dialog.jsx";
import { problemPlace } from "./runProblems.js";

/** `problems` as `runProblems` lists them; `onFocusNode(id)` shows a node, `onRunAnyway()`
 * starts the run despite them. */
export default function RunProblemsDialog({ problems, onFocusNode, onRunAnyway, onClose }) {
  const count = problems.length;
  return (
    <Dialog title={`${count} problem${count === 1 ? "" : "s"} before running`} onClose={onClose}>
      <p className="pw-muted">
        The run would fail at these nodes. Fix them, or run anyway: the nodes with problems and
        everything below them are left out, the rest runs.
      </p>
      <ul className="pw-run-problems">
        {problems.map((problem, index) => (
          <li key={`${problem.node}-${problem.field}-${index}`}>
            {problem.node ? (
              <button
                type="button"
                className="pw-link-button"
                title={`Show ${problem.label} on the canvas`}
                onClick={() => {
                  onClose();
                  onFocusNode(problem.node);
                }}
              >
                <strong>{problemPlace(problem)}</strong>
              </button>
            ) : (
              <strong>{problemPlace(problem)}</strong>
            )}
            <span className="pw-run-problem-message">{problem.message}</span>
          </li>
        ))}
      </ul>
      <div className="pw-dialog-actions">
        <button type="button" onClick={onClose}>
          Close
        </button>
        <button type="button" className="pw-primary" onClick={onRunAnyway}>
          Run anyway
        </button>
      </div>
    </Dialog>
  );
}
