// A save was refused because someone else saved first: see what differs, reload theirs, keep
// mine as a new pipeline (then continue from theirs), or, said in so many words, overwrite
// theirs with mine.

import Dialog from "../../../ui/Dialog.jsx";

// Only a choice ends the conflict: Escape and the backdrop do nothing.
const STAY_OPEN = () => {};

/** Nothing is decided for the user: autosave waits until they choose (saving/useConflict.js). */
export default function ConflictDialog({
  onReload,
  onKeepCopy,
  onOverwrite,
  onShowDifferences,
  differences,
}) {
  return (
    <Dialog title="Someone else saved this pipeline" onClose={STAY_OPEN}>
      <p>
        Someone else saved changes to this pipeline while you were editing it, so your latest
        changes are not saved yet.
      </p>
      <ul className="pw-choices">
        <li>
          <strong>Reload theirs</strong> to continue from their version. Your unsaved changes are
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
            Show what differs
          </button>
        </p>
      )}
      <div className="pw-dialog-actions">
        <button type="button" onClick={onReload}>
          Reload theirs
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
