// The side panel's view of one node: the Preview button and Run menu on top (in reach without
// scrolling past the fields), its label and id, the params form, the retry and timeout
// settings, an incremental input's stored position, its problems, run details and columns.
// Read-only (a viewer): the forms are shown disabled.

import "../../../ui/menu.css";
import { useContext, useEffect, useRef, useState } from "react";
import { describeProblem, generalProblems, messagesAtField } from "../document/problems.js";
import { describeStoredPosition, isIncremental } from "./positions.js";
import { fromNode, upTo } from "../runs/runOptions.js";
import { FieldMessages } from "../form/Field.jsx";
import { CatalogContext, OverlayContext } from "../contexts.js";
import { shownRun } from "../overlay.js";
import { useStore } from "../../../lib/store.js";
import SchemaForm from "../form/SchemaForm.jsx";
import JoinKeySuggestions from "../form/JoinKeySuggestions.jsx";
import SubpipelineSettings from "../subpipelines/SubpipelineSettings.jsx";
import { INLINED, formSchema } from "../subpipelines/subpipelines.js";
import { RunDetails, Columns } from "./NodeDetails.jsx";
import TraceColumn from "../lineage/TraceColumn.jsx";
import ReachingInputs from "../lineage/ReachingInputs.jsx";
import ChecksSection from "../checks/ChecksSection.jsx";
import { isCheckField } from "../checks/checkResults.js";

const NO_PROBLEMS = [];

export function NodePanel({
  api,
  base,
  readOnly,
  node,
  schemas,
  onChange,
  onPreview,
  onRun,
  runActive,
}) {
  const catalog = useContext(CatalogContext);
  const overlay = useContext(OverlayContext);
  const run = useStore(overlay, (state) => shownRun(state).nodes[node.id]);
  const problems = useStore(overlay, (state) => state.problems[node.id] ?? NO_PROBLEMS);
  const operator = catalog.byName.get(node.data.operator);
  const idPrefix = `pw-${node.id}`;
  const general = generalProblems(problems, operator?.params_schema).filter(
    (problem) => !isCheckField(problem.field),
  );
  return (
    <>
      <section className="pw-section">
        <div className="pw-node-panel-head">
          <span
            className={`pw-kind-dot pw-kind-${operator?.kind ?? "unknown"}`}
            aria-hidden="true"
          />
          <div>
            <h2>{operator?.title ?? node.data.operator}</h2>
            <p className="pw-muted pw-small">
              {operator?.description ?? "This operator is not installed on the server."}
            </p>
          </div>
        </div>
        <div className="pw-node-panel-actions">
          <button type="button" onClick={() => onPreview(node.id)}>
            Preview
          </button>
          {onRun ? <NodeRunMenu node={node.id} onRun={onRun} disabled={runActive} /> : null}
        </div>
        <fieldset className="pw-fieldset pw-field" disabled={readOnly}>
          <label className="pw-label" htmlFor={`${idPrefix}-label`}>
            Label
          </label>
          <input
            id={`${idPrefix}-label`}
            type="text"
            value={node.data.label}
            placeholder={node.id}
            aria-invalid={messagesAtField(problems, "label").length > 0 || undefined}
            onChange={(event) =>
              onChange(node.id, { label: event.target.value }, `label.${node.id}`)
            }
          />
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
      {run && run.status !== "idle" ? (
        <RunDetails run={run} kind={operator?.kind} sets={catalog.statuses} />
      ) : null}
      {api && isIncremental(node.data.params) ? (
        <StoredPosition
          api={api}
          url={`${base}/nodes/${encodeURIComponent(node.id)}/position`}
          readOnly={readOnly}
          runStatus={run?.status}
        />
      ) : null}
      <section className="pw-section">
        <h3>Settings</h3>
        <fieldset className="pw-fieldset" disabled={readOnly}>
          {node.data.operator === "join" && !readOnly ? (
            <JoinKeySuggestions
              params={node.data.params}
              schemas={schemas}
              onChange={(params) => onChange(node.id, { params }, `keys.${node.id}`)}
            />
          ) : null}
          {INLINED.has(node.data.operator) ? (
            <SubpipelineSettings
              api={api}
              base={base}
              params={node.data.params}
              problems={problems}
              idPrefix={idPrefix}
              onChange={(params, key) => onChange(node.id, { params }, `${key}.${node.id}`)}
            />
          ) : null}
          {node.data.operator === "subpipeline" ? null : (
            <SchemaForm
              schema={formSchema(operator, node.data.params)}
              value={node.data.params}
              problems={problems}
              schemas={schemas}
              readOnly={readOnly}
              writes={operator?.kind === "output"}
              idPrefix={idPrefix}
              onChange={(params, key) => onChange(node.id, { params }, `${key}.${node.id}`)}
            />
          )}
          <details
            className="pw-advanced"
            open={
              problems.some(
                (problem) => problem.field === "retries" || problem.field === "timeout_s",
              ) || undefined
            }
          >
            <summary>Retries and timeout</summary>
            <NumberSetting
              id={`${idPrefix}-retries`}
              label="Node retries"
              hint="Empty: the pipeline's setting."
              messages={messagesAtField(problems, "retries")}
              value={node.data.retries}
              integer
              onChange={(retries) => onChange(node.id, { retries }, `retries.${node.id}`)}
            />
            <NumberSetting
              id={`${idPrefix}-timeout`}
              label="Node timeout (s)"
              hint="Empty: the pipeline's setting."
              messages={messagesAtField(problems, "timeout_s")}
              value={node.data.timeout_s}
              onChange={(timeout_s) => onChange(node.id, { timeout_s }, `timeout.${node.id}`)}
            />
          </details>
        </fieldset>
      </section>
      <ChecksSection
        schema={catalog.checks}
        node={node}
        problems={problems}
        schemas={schemas}
        readOnly={readOnly}
        onChange={onChange}
      />
      <section className="pw-section">
        <div className="pw-section-head">
          <h3>Columns</h3>
        </div>
        <Columns schemas={schemas} />
        <TraceColumn node={node.id} schemas={schemas} />
      </section>
      {operator?.kind === "output" ? (
        <ReachingInputs api={api} base={base} node={node.id} version={schemas} />
      ) : null}
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
          <button
            type="button"
            onClick={reset}
            title="Forget the position: the next run reads everything"
          >
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
        <button
          type="button"
          disabled={disabled}
          onClick={() => run(upTo(node))}
          title="Run this node and the nodes it reads from"
        >
          Run up to here
        </button>
        <button
          type="button"
          disabled={disabled}
          onClick={() => run(fromNode(node))}
          title="Run this node and everything below it, reusing the stored results above it"
        >
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
