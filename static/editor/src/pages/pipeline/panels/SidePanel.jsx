// The right-hand panel: the selected node (label, id, params form, problems, columns,
// run details, the Preview button and the node's Run menu), or the pipeline's overview when nothing is selected.
// Read-only (a viewer): the forms are shown disabled, and nothing offers to delete.

import "../../../ui/menu.css";
import "./SidePanel.css";
import { memo, useContext, useEffect, useRef, useState } from "react";
import { formatCount, formatDuration, formatRate, rowsIn, rowsWritten } from "../../../lib/format.js";
import { describeProblem, generalProblems, messagesAtField } from "../document/problems.js";
import { describeStoredPosition, isIncremental } from "./positions.js";
import { fromNode, upTo } from "../runs/runOptions.js";
import { FieldMessages } from "../form/Field.jsx";
import { CatalogContext, OverlayContext } from "../contexts.js";
import { StatusBadge } from "../canvas/nodes/NodeCard.jsx";
import { shownRun } from "../overlay.js";
import { useStore } from "../../../lib/store.js";
import SchemaForm from "../form/SchemaForm.jsx";

const NO_PROBLEMS = [];

/** The panel for `selected` (the selected nodes). */
function SidePanel({ api, base, readOnly = false, selected, schemas, onNodeChange, onPreview, onRun, runActive, onDelete, onFocusNode, pipelineProblems, nodeCount }) {
  const panel = useRef(null);
  const shownId = selected.length === 1 ? selected[0].id : null;
  useEffect(() => {
    // Each node's settings start at the top, wherever the last node's were scrolled to.
    if (panel.current) panel.current.scrollTop = 0;
  }, [shownId]);
  if (selected.length === 1) {
    return (
      <aside className="pw-side" aria-label="Node" ref={panel}>
        <NodePanel key={selected[0].id} api={api} base={base} readOnly={readOnly} node={selected[0]} schemas={schemas?.[selected[0].id]} onChange={onNodeChange} onPreview={onPreview} onRun={onRun} runActive={runActive} />
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
            <strong>Start here:</strong> drag an input (a CSV file, say) from the left onto the canvas, add a processing step,
            then an output.
          </p>
          <p>Connect a node's right-hand handle to the next node's left-hand handle. Click a node to set it up.</p>
        </div>
      ) : (
        <p className="pw-muted">
          {nodeCount} node{nodeCount === 1 ? "" : "s"}. Click a node to edit its settings; shift-drag to select several.
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
                  <button type="button" className="pw-link-button" title={`Show ${problem.node}`} onClick={() => onFocusNode(problem.node)}>
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
        <dt>Ctrl+S</dt>
        <dd>save</dd>
        <dt>Ctrl+Z / Ctrl+Shift+Z</dt>
        <dd>undo / redo</dd>
        <dt>Ctrl+C / Ctrl+V</dt>
        <dd>copy / paste nodes</dd>
        <dt>Ctrl+A</dt>
        <dd>select every node</dd>
        <dt>Delete</dt>
        <dd>delete the selection</dd>
        <dt>Shift+drag</dt>
        <dd>select several</dd>
      </dl>
    </section>
  );
}

function NodePanel({ api, base, readOnly, node, schemas, onChange, onPreview, onRun, runActive }) {
  const catalog = useContext(CatalogContext);
  const overlay = useContext(OverlayContext);
  const run = useStore(overlay, (state) => shownRun(state).nodes[node.id]);
  const problems = useStore(overlay, (state) => state.problems[node.id] ?? NO_PROBLEMS);
  const operator = catalog.byName.get(node.data.operator);
  const idPrefix = `pw-${node.id}`;
  const general = generalProblems(problems, operator?.params_schema);
  return (
    <>
      <section className="pw-section">
        <div className="pw-node-panel-head">
          <span className={`pw-kind-dot pw-kind-${operator?.kind ?? "unknown"}`} aria-hidden="true" />
          <div>
            <h2>{operator?.title ?? node.data.operator}</h2>
            <p className="pw-muted pw-small">{operator?.description ?? "This operator is not installed on the server."}</p>
          </div>
        </div>
        <fieldset className="pw-fieldset pw-field" disabled={readOnly}>
          <label className="pw-label" htmlFor={`${idPrefix}-label`}>
            Label
          </label>
          <input id={`${idPrefix}-label`} type="text" value={node.data.label} placeholder={node.id} aria-invalid={messagesAtField(problems, "label").length > 0 || undefined} onChange={(event) => onChange(node.id, { label: event.target.value }, `label.${node.id}`)} />
          <FieldMessages messages={messagesAtField(problems, "label")} />
        </fieldset>
        <div className="pw-field">
          <span className="pw-label">Id</span>
          <code className="pw-node-id-value">{node.id}</code>
        </div>
        {general.length ? (
          <ul className="pw-field-problems" role="alert">
            {general.map((problem, index) => (
              <li key={index}>{describeProblem(problem)}</li>
            ))}
          </ul>
        ) : null}
      </section>
      {run && run.status !== "idle" ? <RunDetails run={run} kind={operator?.kind} sets={catalog.statuses} /> : null}
      {api && isIncremental(node.data.params) ? <StoredPosition api={api} url={`${base}/nodes/${encodeURIComponent(node.id)}/position`} readOnly={readOnly} runStatus={run?.status} /> : null}
      <section className="pw-section">
        <h3>Settings</h3>
        <fieldset className="pw-fieldset" disabled={readOnly}>
          <SchemaForm
            schema={operator?.params_schema}
            value={node.data.params}
            problems={problems}
            schemas={schemas}
            readOnly={readOnly}
            idPrefix={idPrefix}
            onChange={(params, key) => onChange(node.id, { params }, `${key}.${node.id}`)}
          />
          <details className="pw-advanced" open={problems.some((problem) => problem.field === "retries" || problem.field === "timeout_s") || undefined}>
            <summary>Retries and timeout</summary>
            <NumberSetting id={`${idPrefix}-retries`} label="Node retries" hint="Empty: the pipeline's setting." messages={messagesAtField(problems, "retries")} value={node.data.retries} integer onChange={(retries) => onChange(node.id, { retries }, `retries.${node.id}`)} />
            <NumberSetting id={`${idPrefix}-timeout`} label="Node timeout (s)" hint="Empty: the pipeline's setting." messages={messagesAtField(problems, "timeout_s")} value={node.data.timeout_s} onChange={(timeout_s) => onChange(node.id, { timeout_s }, `timeout.${node.id}`)} />
          </details>
        </fieldset>
      </section>
      <section className="pw-section">
        <div className="pw-section-head">
          <h3>Columns</h3>
          <span className="pw-section-actions">
            <button type="button" onClick={() => onPreview(node.id)}>
              Preview
            </button>
            {onRun ? <NodeRunMenu node={node.id} onRun={onRun} disabled={runActive} /> : null}
          </span>
        </div>
        <Columns schemas={schemas} />
      </section>
    </>
  );
}

/** An incremental input's stored position (where its last successful run stopped reading),
 * fetched again when a run of the node ends, with Reset for editors. */
function StoredPosition({ api, url, readOnly, runStatus }) {
  const [stored, setStored] = useState(undefined); // undefined: loading; null: none stored
  const [error, setError] = useState(null);
  useEffect(() => {
    let current = true;
    api.get(url).then(
      (found) => current && setStored(found),
      (failure) => {
        if (!current) return;
        if (failure.code === "no_position") setStored(null);
        else setError(failure.message);
      },
    );
    return () => {
      current = false;
    };
  }, [api, url, runStatus]);
  const reset = async () => {
    try {
      await api.del(url);
      setStored(null);
    } catch (failure) {
      setError(failure.message);
    }
  };
  return (
    <section className="pw-section pw-position" aria-label="Incremental position">
      <div className="pw-section-head">
        <h3>Incremental</h3>
        {stored && !readOnly ? (
          <button type="button" onClick={reset} title="Forget the position: the next run reads everything">
            Reset
          </button>
        ) : null}
      </div>
      {error ? (
        <p className="pw-run-error" role="alert">
          {error}
        </p>
      ) : stored === undefined ? (
        <p className="pw-muted pw-small">Loading…</p>
      ) : stored ? (
        <p className="pw-position-text">{describeStoredPosition(stored)}</p>
      ) : (
        <p className="pw-muted pw-small">No position stored: the next run reads everything.</p>
      )}
    </section>
  );
}

/** Run part of the pipeline from this node: up to it (it and its ancestors), or from it (it and
 * what is below it, reusing the stored results above it). */
function NodeRunMenu({ node, onRun, disabled }) {
  const menu = useRef(null);
  const run = (options) => {
    menu.current.open = false;
    onRun(options);
  };
  return (
    <details className="pw-menu pw-node-run-menu" ref={menu}>
      <summary aria-disabled={disabled || undefined} title="Run part of the pipeline">
        Run ▾
      </summary>
      <div className="pw-menu-items">
        <button type="button" disabled={disabled} onClick={() => run(upTo(node))} title="Run this node and the nodes it reads from">
          Run up to here
        </button>
        <button type="button" disabled={disabled} onClick={() => run(fromNode(node))} title="Run this node and everything below it, reusing the stored results above it">
          Run from here
        </button>
      </div>
    </details>
  );
}

function NumberSetting({ id, label, hint, messages, value, integer = false, onChange }) {
  return (
    <div className="pw-field">
      <label className="pw-label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        type="number"
        min={0}
        step={integer ? 1 : "any"}
        value={value ?? ""}
        aria-invalid={messages.length > 0 || undefined}
        onChange={(event) => {
          const text = event.target.value;
          onChange(text === "" ? null : integer ? Math.trunc(Number(text)) : Number(text));
        }}
      />
      <p className="pw-hint">{hint}</p>
      <FieldMessages messages={messages} />
    </div>
  );
}

function RunDetails({ run, kind, sets }) {
  const metrics = run.metrics ?? {};
  const incoming = rowsIn(metrics);
  const failed = sets.failures.has(run.status);
  // Rows counted so far are rows out only while the node works: a failed or cancelled node
  // passed none on.
  const rowsOut = metrics.rows_out ?? (sets.working.has(run.status) ? run.rows : null);
  return (
    <section className={`pw-section pw-run-details${failed ? " is-failed" : ""}`}>
      <div className="pw-section-head">
        <h3>Last run</h3>
        <StatusBadge status={run.status} working={sets.working} cached={metrics.cached === true} />
      </div>
      <dl className="pw-metrics">
        <dt>Rows in</dt>
        <dd>{formatCount(incoming)}</dd>
        {kind === "output" ? (
          <>
            <dt>Rows written</dt>
            <dd>{formatCount(rowsWritten(metrics, run.status))}</dd>
          </>
        ) : (
          <>
            <dt>Rows out</dt>
            <dd>{formatCount(rowsOut)}</dd>
          </>
        )}
        <dt>Duration</dt>
        <dd>{formatDuration(metrics.duration_s)}</dd>
        <dt>Speed</dt>
        <dd>{formatRate(incoming ?? metrics.rows_out, metrics.duration_s) ?? "–"}</dd>
        {run.attempt > 1 ? (
          <>
            <dt>Attempts</dt>
            <dd>{run.attempt}</dd>
          </>
        ) : null}
      </dl>
      {run.error ? (
        <div className="pw-run-error" role="alert">
          <strong>Error:</strong> {run.error}
        </div>
      ) : null}
      {run.traceback ? (
        <details className="pw-traceback">
          <summary>Traceback</summary>
          <pre>{run.traceback}</pre>
        </details>
      ) : null}
    </section>
  );
}

function Columns({ schemas }) {
  if (!schemas) return <p className="pw-muted pw-small">Columns appear once the node's inputs are connected and can be read.</p>;
  const inputs = Object.entries(schemas.inputs ?? {});
  const outputs = Object.entries(schemas.outputs ?? {});
  return (
    <div className="pw-columns">
      {inputs.map(([port, value]) => (
        <ColumnList key={`in-${port}`} title={`In · ${port}`} columns={value} />
      ))}
      {outputs.map(([port, value]) => (
        <ColumnList key={`out-${port}`} title={`Out · ${port}`} columns={value} />
      ))}
      {!inputs.length && !outputs.length ? <p className="pw-muted pw-small">No columns known yet.</p> : null}
    </div>
  );
}

function ColumnList({ title, columns }) {
  const lists = Array.isArray(columns?.[0]) ? columns : [columns];
  return (
    <div className="pw-column-list">
      <h4>{title}</h4>
      {lists.map((list, index) =>
        list ? (
          <table key={index} className="pw-table pw-table-compact">
            <tbody>
              {list.map((column) => (
                <tr key={column.name}>
                  <td>{column.name}</td>
                  <td className="pw-type">
                    {column.type}
                    {column.nullable ? " · nullable" : ""}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p key={index} className="pw-muted pw-small">
            not known (connect an input)
          </p>
        ),
      )}
    </div>
  );
}

export default memo(SidePanel);
