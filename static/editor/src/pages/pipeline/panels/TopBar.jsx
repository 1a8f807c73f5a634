// The editor's top bar: the pipeline's workspace and name, save state, editing tools, the
// settings, run history, the "More" menu (export, import, images: MoreMenu.jsx) and Run /
// Cancel, on one line from 1280 px wide. A viewer (`readOnly`) gets the name, export, images
// and run history: nothing that changes the pipeline or starts a run.

import "../../../ui/menu.css";
import "./TopBar.css";
import { memo, useRef } from "react";
import { fileName } from "../../../lib/format.js";
import { FRESH } from "../runs/runOptions.js";
import { runLabel } from "../runs/runProblems.js";
import JsonFileInput from "../../../ui/JsonFileInput.jsx";
import { filesUrl } from "../../workspace/roles.js";
import MoreMenu from "./MoreMenu.jsx";

/** The bar; every action is a callback of EditorApp. */
function TopBar({
  readOnly,
  workspace,
  name,
  onRename,
  saveLabel,
  saveTitle,
  onSave,
  onUndo,
  canUndo,
  onRedo,
  canRedo,
  onLayout,
  onSettings,
  onExport,
  onExportPython,
  onImport,
  imageUrl,
  history,
  runActive,
  cancelling,
  onRun,
  onCancel,
  tuning = true,
  onTuning,
  connection,
  presence = null,
  problemCount = 0,
}) {
  const file = useRef(null);
  return (
    <div className="pw-topbar" role="toolbar" aria-label="Pipeline">
      <div className="pw-topbar-group pw-topbar-name">
        <a className="pw-back" href="/" title="All pipelines" aria-label="All pipelines">
          ←
        </a>
        {workspace ? (
          <>
            <a
              className="pw-topbar-workspace"
              href={filesUrl(workspace.slug)}
              title={`The files of ${workspace.name}`}
            >
              {workspace.name}
            </a>
            <span className="pw-muted" aria-hidden="true">
              /
            </span>
          </>
        ) : null}
        <input
          className="pw-name"
          aria-label="Pipeline name"
          value={name}
          maxLength={200}
          readOnly={readOnly}
          onChange={(event) => onRename(event.target.value)}
        />
        {readOnly ? null : (
          <>
            <span
              className={`pw-save-state pw-save-${saveLabel === "Saved" ? "saved" : saveLabel === "Saving…" ? "saving" : "unsaved"}`}
              title={saveTitle}
              role="status"
            >
              {saveLabel}
            </span>
            <button type="button" onClick={onSave} title="Save (Ctrl+S)">
              Save
            </button>
          </>
        )}
      </div>
      {readOnly ? null : (
        <div className="pw-topbar-group">
          <button
            type="button"
            onClick={onUndo}
            disabled={!canUndo}
            title="Undo (Ctrl+Z)"
            aria-label="Undo"
          >
            ↶
          </button>
          <button
            type="button"
            onClick={onRedo}
            disabled={!canRedo}
            title="Redo (Ctrl+Shift+Z)"
            aria-label="Redo"
          >
            ↷
          </button>
          <button type="button" onClick={onLayout} title="Arrange the nodes with Graphviz">
            Auto-layout
          </button>
        </div>
      )}
      <span className="pw-topbar-spacer" />
      <div className="pw-topbar-group">
        {readOnly ? null : (
          <button type="button" onClick={onSettings}>
            Settings
          </button>
        )}
        {history}
        <MoreMenu
          items={[
            { label: "Export as JSON", title: "Download the pipeline as JSON", onSelect: onExport },
            {
              label: "Export as Python",
              title: "A script that runs the pipeline with pandas",
              onSelect: onExportPython,
            },
            ...(readOnly
              ? []
              : [
                  {
                    label: "Import JSON…",
                    title: "Replace this pipeline's graph with a JSON file",
                    onSelect: () => file.current?.click(),
                  },
                ]),
            { label: "Graph as SVG", href: `${imageUrl}.svg`, download: fileName(name, "svg") },
            { label: "Graph as PNG", href: `${imageUrl}.png`, download: fileName(name, "png") },
          ]}
        />
        {readOnly ? null : <JsonFileInput ref={file} onChoose={onImport} />}
        {presence}
      </div>
      <div className="pw-topbar-group pw-run-group">
        {connection === "reconnecting" || connection === "forbidden" ? (
          <span
            className="pw-connection"
            title={
              connection === "forbidden"
                ? "The server refused the live view"
                : "The live view reconnects by itself"
            }
          >
            {connection === "forbidden" ? "live view refused" : "live view offline"}
          </span>
        ) : null}
        {cancelling ? (
          <span
            className="pw-cancelling"
            aria-live="polite"
            title="The nodes running now finish first; no new node starts"
          >
            <span className="pw-spinner" aria-hidden="true" /> Cancelling…
          </span>
        ) : null}
        {readOnly ? null : (
          <>
            <button
              type="button"
              className={`pw-primary${problemCount ? " pw-run-problems-button" : ""}`}
              // The server checks again (a missing file may have arrived since): it starts the run,
              // or refuses it with the problems, which opens their list with Run anyway.
              onClick={() => onRun()}
              disabled={runActive}
              title={
                problemCount
                  ? "The problems a run would fail at, and Run anyway"
                  : "Run, reusing the stored results of nodes that did not change" +
                    (tuning ? "" : " (untuned: without the figures of past runs)")
              }
            >
              {runLabel(problemCount)}
            </button>
            <RunMenu disabled={runActive} onRun={onRun} tuning={tuning} onTuning={onTuning} />
            <button type="button" onClick={onCancel} disabled={!runActive || cancelling}>
              Cancel
            </button>
          </>
        )}
      </div>
    </div>
  );
}

/** The other ways to start a run, beside Run: fresh, reusing no stored result; and whether
 * the runs started from here are planned from the figures of past runs (`onTuning(on)`). */
function RunMenu({ disabled, onRun, tuning, onTuning }) {
  const menu = useRef(null);
  return (
    <details className="pw-menu pw-run-menu" ref={menu}>
      <summary
        aria-label="More ways to run"
        title="More ways to run"
        aria-disabled={disabled || undefined}
      >
        ▾
      </summary>
      <div className="pw-menu-items">
        <button
          type="button"
          disabled={disabled}
          title="Run every node again, reusing no stored result"
          onClick={() => {
            menu.current.open = false;
            onRun(FRESH);
          }}
        >
          Run fresh
        </button>
        <label
          className="pw-menu-check"
          title="Plan each run from the figures of past runs: backends, DuckDB's threads and memory, what the result store keeps. Off: the fixed rules (the run is labelled untuned)."
        >
          <input
            type="checkbox"
            checked={tuning}
            onChange={(event) => onTuning(event.target.checked)}
          />
          Use figures from past runs
        </label>
      </div>
    </details>
  );
}

export default memo(TopBar);
