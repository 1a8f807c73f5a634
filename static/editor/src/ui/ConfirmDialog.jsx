// Asking before something that cannot be undone: what happens, a way back, and the act.

import Dialog from "./Dialog.jsx";

/** `keepLabel` closes; `actLabel` (styled as dangerous) calls `onConfirm`. */
export default function ConfirmDialog({
  title,
  children,
  keepLabel = "Keep it",
  actLabel = "Delete",
  onConfirm,
  onClose,
}) {
  return (
    <Dialog title={title} onClose={onClose}>
      <p>{children}</p>
      <div className="pw-dialog-actions">
        <button type="button" onClick={onClose}>
          {keepLabel}
        </button>
        <button type="button" className="pw-danger" onClick={onConfirm}>
          {actLabel}
        </button>
      </div>
    </Dialog>
  );
}
