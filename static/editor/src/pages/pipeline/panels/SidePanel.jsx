// The right-hand panel: the selected node (NodePanel.jsx), or the pipeline's overview (its
// problems and the keyboard shortcuts) when nothing is selected. Read-only (a viewer): the
// forms are shown disabled, and nothing offers to delete.

import "./SidePanel.css";
import { Fragment, memo, useContext, useEffect, useRef } from "react";
import { describeProblem } from "../document/problems.js";
import { OverlayContext } from "../contexts.js";
import { useStore } from "../../../lib/store.js";
import { NodePanel } from "./NodePanel.jsx";
import { SHORTCUTS, keyLabel } from "../shortcuts.js";

/** The panel for `selected` (the selected nodes). */
function SidePanel({
  api,
  base,
  readOnly = false,
  selected,
  schemas,
  onNodeChange,
  onPreview,
  onRun,
  runActive,
  onDelete,
  onFocusNode,
  pipelineProblems,
  nodeCount,
}) {
  const panel = useRef(null);
  const shownId = selected.length === 1 ? selected[0].id : null;
  useEffect(() => {
    // Each node's settings start at the top, wherever the last node's were scrolled to.
    if (panel.current) panel.current.scrollTop = 0;
  }, [shownId]);
  if (selected.length === 1) {
    return (
      <aside className="pw-side" aria-label="Node" ref={panel}>
        <NodePanel
          key={selected[0].id}
          api={api}
          base={base}
          readOnly={readOnly}
          node={selected[0]}
          schemas={schemas?.[selected[0].id]}
          onChange={onNodeChange}
          onPreview={onPreview}
          onRun={onRun}
          runActive={runActive}
        />
      </aside>
    );
  }
  return (
    <aside className="pw-side" aria-label="Pipeline" ref={panel}>
      {selected.length > 1 ? (
        <section className="pw-section">
          <h2>{selected.length} nodes selected</h2>
          {readOnly ? (
            <p className="pw-muted">Copy them with Ctrl+C into a pipeline of your own.</p>
          ) : (
            <>
              <p className="pw-muted">Drag them together, copy them with Ctrl+C, or delete them.</p>
              <button type="button" onClick={onDelete}>
                Delete selection
              </button>
            </>
          )}
        </section>
      ) : (
        <Overview nodeCount={nodeCount} problems={pipelineProblems} onFocusNode={onFocusNode} />
      )}
    </aside>
  );
}

function Overview({ nodeCount, problems, onFocusNode }) {
  const overlay = useContext(OverlayContext);
  const nodeProblems = useStore(overlay, (state) => state.problems);
  const count = Object.values(nodeProblems).reduce((sum, list) => sum + list.length, 0);
  return (
    <section className="pw-section">
      <h2>Pipeline</h2>
      {nodeCount === 0 ? (
        <div className="pw-empty-hint">
          <p>
            <strong>Start here:</strong> drag an input (a CSV file, say) from the left onto the
            canvas, add a processing step, then an output.
          </p>
          <p>
            Connect a node's right-hand handle to the next node's left-hand handle. Click a node to
            set it up.
          </p>
        </div>
      ) : (
        <p className="pw-muted">
          {nodeCount} node{nodeCount === 1 ? "" : "s"}. Click a node to edit its settings;
          shift-drag to select several.
        </p>
      )}
      {count || problems.length ? (
        <div className="pw-problems">
          <h3>
            {count + problems.length} problem{count + problems.length === 1 ? "" : "s"}
          </h3>
          <ul>
            {problems.map((problem, index) => (
              <li key={`p${index}`}>{describeProblem(problem)}</li>
            ))}
            {Object.values(nodeProblems)
              .flat()
              .slice(0, 20)
              .map((problem, index) => (
                <li key={`n${index}`}>
                  <button
                    type="button"
                    className="pw-link-button"
                    title={`Show ${problem.node}`}
                    onClick={() => onFocusNode(problem.node)}
                  >
                    {describeProblem(problem, true)}
                  </button>
                </li>
              ))}
          </ul>
        </div>
      ) : nodeCount ? (
        <p className="pw-ok">No problems found.</p>
      ) : null}
      <h3>Shortcuts</h3>
      <dl className="pw-shortcuts">
        {PANEL_SHORTCUTS.map((row) => (
          <Fragment key={row.title}>
            <dt>{row.keys.map((spec) => keyLabel(spec)).join(" / ")}</dt>
            <dd>{row.title}</dd>
          </Fragment>
        ))}
      </dl>
    </section>
  );
}

// The shortcut table's rows for the keys, the sheet ("?") has every row.
const PANEL_SHORTCUTS = SHORTCUTS.filter((row) => row.action || row.mouse);

export default memo(SidePanel);
