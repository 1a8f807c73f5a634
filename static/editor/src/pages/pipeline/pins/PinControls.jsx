// In the Data tab: whether the node is pinned, "Pin this output" (the shown run's result),
// "Edit rows, then pin" (the shown page as JSON, edited, pinned), and "Unpin" (docs/pins.md).

import "./pins.css";
import { useState } from "react";
import { parseRows, rowsText } from "./pinRows.js";

/** `pinning`: what `usePins` gives; `run`: the run shown (`{runId}`); `page`: the page of rows
 * shown, if any. */
export default function PinControls({ pinning, node, run, page }) {
  const [editing, setEditing] = useState(null); // the rows' JSON text while edited
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  if (!node) return null;
  const pin = pinning.pins.get(node);
  const act = async (change) => {
    setBusy(true);
    setError(null);
    try {
      await change();
      return true;
    } catch (failure) {
      setError(failure.message);
      return false;
    } finally {
      setBusy(false);
    }
  };
  const pinEdited = async () => {
    const rows = parseRows(editing);
    if (rows instanceof Error) return setError(rows.message);
    if (await act(() => pinning.pinRows(node, rows))) setEditing(null);
  };
  return (
    <div className="pw-pin-controls">
      {pin ? (
        <span
          className="pw-badge pw-pin"
          title={`Runs use these rows instead of running ${node} (pinned by ${pin.created_by ?? "someone"})`}
        >
          Pinned: {pin.rows.toLocaleString("en-US")} rows from {pin.source}
        </span>
      ) : null}
      {pinning.readOnly ? null : (
        <>
          <button
            type="button"
            disabled={busy}
            onClick={() => act(() => pinning.pinFromRun(node, run.runId))}
          >
            Pin this output
          </button>
          <button
            type="button"
            disabled={busy || !page || editing !== null}
            onClick={() => setEditing(rowsText(page))}
          >
            Edit rows, then pin
          </button>
          {pin ? (
            <button type="button" disabled={busy} onClick={() => act(() => pinning.unpin(node))}>
              Unpin
            </button>
          ) : null}
        </>
      )}
      {error ? (
        <p className="pw-error pw-small" role="alert">
          {error}
        </p>
      ) : null}
      {editing !== null ? (
        <div className="pw-pin-editor">
          <label htmlFor="pw-pin-rows">Rows to pin (JSON, one object per row)</label>
          <textarea
            id="pw-pin-rows"
            spellCheck="false"
            value={editing}
            onChange={(event) => setEditing(event.target.value)}
          />
          <div className="pw-pin-editor-actions">
            <button type="button" disabled={busy} onClick={pinEdited}>
              Pin these rows
            </button>
            <button type="button" onClick={() => setEditing(null)}>
              Cancel
            </button>
          </div>
        </div>
      ) : null}
    </div>
  );
}
