// A save was refused because someone else saved first: reload theirs or overwrite with ours.

import Dialog from "../../ui/Dialog.jsx";

// Only one of the two choices ends the conflict: Escape and the backdrop do nothing.
const STAY_OPEN = () => {};

/** Nothing is decided for the user: autosave waits until they reload or overwrite. */
export default function ConflictDialog({ onReload, onOverwrite }) {
  return (
    <Dialog title="Someone else saved this pipeline" onClose={STAY_OPEN}>
      <p>Someone else saved changes to this pipeline while you were editing it, so your latest changes are not saved yet.</p>
      <ul className="pw-choices">
        <li>
          <strong>Reload theirs</strong> to see their version. Your unsaved changes are set aside: Undo brings them back.
        </li>
        <li>
          <strong>Overwrite with mine</strong> to save your version over theirs. Their changes are lost.
        </li>
      </ul>
      <div className="pw-dialog-actions">
        <button type="button" onClick={onReload}>
          Reload theirs
        </button>
        <button type="button" className="pw-danger" onClick={onOverwrite}>
          Overwrite with mine
        </button>
      </div>
    </Dialog>
  );
}
