// A save was refused because someone else saved first and changed what this user changed:
// who, and which nodes, with their value and mine side by side; then take theirs, keep mine
// as a new pipeline (then continue from theirs), or, said in so many words, overwrite theirs
// with mine. (A save that touched other things than theirs is merged, and never gets here.)

import "../together/together.css";
import Dialog from "../../../ui/Dialog.jsx";

// Only a choice ends the conflict: Escape and the backdrop do nothing.
const STAY_OPEN = () => {};

/** Nothing is decided for the user: autosave waits until they choose (saving/useConflict.js).
 * `who` saved meanwhile; `rows` are conflictRows.js's. */
export default function ConflictDialog({
  who,
  rows,
  onReload,
  onKeepCopy,
  onOverwrite,
  onShowDifferences,
  differences,
}) {
  const named = rows.map((row) => row.label).join(", ");
  return (
    <Dialog title={`${who} saved this pipeline`} onClose={STAY_OPEN}>
      <p>
        {who} saved changes to this pipeline while you were editing it
        {named ? (
          <>
            , and changed what you changed: <strong>{named}</strong>
          </>
        ) : null}
        . Your latest changes are not saved yet.
      </p>
      {rows.some((entry) => entry.rows.length) ? (
        <table className="pw-conflict-table" aria-label="Their version and mine">
          <thead>
            <tr>
              <th scope="col">What</th>
              <th scope="col">Theirs ({who})</th>
              <th scope="col">Mine</th>
            </tr>
          </thead>
          <tbody>
            {rows.flatMap((entry) =>
              entry.rows.map((row) => (
                <tr key={`${entry.id}:${row.field}`}>
                  <th scope="row">
                    {entry.label === row.field ? row.field : `${entry.label} · ${row.field}`}
                  </th>
                  <td>
                    <pre>{row.theirs}</pre>
                  </td>
                  <td>
                    <pre>{row.mine}</pre>
                  </td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      ) : null}
      <ul className="pw-choices">
        <li>
          <strong>Take theirs</strong> to continue from their version. Your unsaved changes are
          dropped.
        </li>
        <li>
          <strong>Keep mine as a copy</strong> to save your version as a new pipeline, then continue
          here from theirs.
        </li>
        <li>
          <strong>Overwrite with mine</strong> to save your version over theirs. Their changes are
          lost.
        </li>
      </ul>
      {differences ? (
        <p role="status" aria-label="What differs">
          Compared with theirs, your version: {differences}.
        </p>
      ) : (
        <p>
          <button type="button" onClick={onShowDifferences}>
            Show everything that differs
          </button>
        </p>
      )}
      <div className="pw-dialog-actions">
        <button type="button" onClick={onReload}>
          Take theirs
        </button>
        <button type="button" className="pw-primary" onClick={onKeepCopy}>
          Keep mine as a copy
        </button>
        <button type="button" className="pw-danger" onClick={onOverwrite}>
          Overwrite with mine
        </button>
      </div>
    </Dialog>
  );
}
