// The side panel's Checks section: a node's data tests (docs/data-tests.md), edited with the
// params form generated from their JSON Schema (the operator catalog's `checks`), the column
// pickers offering the node's output columns.

import SchemaForm from "../form/SchemaForm.jsx";
import { checkProblems, checkedColumns } from "./checkResults.js";
import "./checks.css";

export default function ChecksSection({ schema, node, problems, schemas, readOnly, onChange }) {
  if (!schema) return null;
  const checks = node.data.expect ?? [];
  return (
    <section className="pw-section pw-checks" aria-label="Checks">
      <div className="pw-section-head">
        <h3>Checks</h3>
        <a className="pw-small" href="/docs/data-tests/" target="_blank" rel="noreferrer">
          Help
        </a>
      </div>
      {!checks.length ? (
        <p className="pw-muted pw-small">
          No checks: add one to test the rows this node produces on every run.
        </p>
      ) : null}
      <fieldset className="pw-fieldset" disabled={readOnly}>
        <SchemaForm
          schema={schema}
          value={{ expect: checks }}
          problems={checkProblems(problems)}
          schemas={checkedColumns(schemas)}
          readOnly={readOnly}
          idPrefix={`pw-${node.id}-checks`}
          onChange={(value, key) =>
            onChange(node.id, { expect: value.expect ?? [] }, `${key}.${node.id}`)
          }
        />
      </fieldset>
    </section>
  );
}
