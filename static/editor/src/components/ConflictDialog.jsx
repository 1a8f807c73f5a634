// A save was refused because someone else saved first: reload theirs or overwrite with ours.

import Dialog from "./Dialog.jsx";

/** Nothing is decided for the user: autosave waits until "Reload" or "Overwrite". */
export default function ConflictDialog({ conflict, onReload, onOverwrite }) {
  return (
    <Dialog title="Someone else saved this pipeline" onClose={() => {}}>
      <p>{conflict.message}</p>
      <p>
        <strong>Reload</strong> shows their version and drops your unsaved changes (Undo brings them back).{" "}
        <strong>Overwrite</strong> saves your version over theirs.
      </p>
      <div className="pw-dialog-actions">
        <button type="button" onClick={onReload}>
          Reload
        </button>
        <button type="button" className="pw-danger" onClick={onOverwrite}>
          Overwrite
        </button>
      </div>
    </Dialog>
  );
}
