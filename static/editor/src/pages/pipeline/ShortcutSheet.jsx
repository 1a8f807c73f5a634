// The shortcut sheet ("?"): every row of the editor's shortcut table (shortcuts.js), the
// same table the keys are handled by, so that it cannot list a key that does nothing.

import Dialog from "../../ui/Dialog.jsx";
import { SHORTCUTS, keyLabel } from "./shortcuts.js";

const MAC = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);

export default function ShortcutSheet({ onClose }) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose}>
      <table className="pw-table pw-shortcut-sheet" aria-label="Shortcuts">
        <thead>
          <tr>
            <th scope="col">Keys</th>
            <th scope="col">What they do</th>
          </tr>
        </thead>
        <tbody>
          {SHORTCUTS.map((row) => (
            <tr key={`${row.keys.join()}.${row.title}`}>
              <td>
                {row.keys.map((spec, index) => (
                  <span key={spec}>
                    {index ? " or " : null}
                    <kbd>{keyLabel(spec, MAC)}</kbd>
                  </span>
                ))}
              </td>
              <td>{row.title}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="pw-dialog-actions">
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
