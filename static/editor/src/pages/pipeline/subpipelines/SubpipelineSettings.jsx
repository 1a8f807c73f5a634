// A sub-pipeline node's settings: which pipeline (with an Open button), its revision ("latest"
// shown with its number, or a kept one), and its parameters, each edited as its default's
// type. Problems the server found are shown under the field they name.

import { FieldMessages } from "../form/Field.jsx";
import { messagesAtField } from "../document/problems.js";
import { useSubpipelines } from "./useSubpipelines.js";
import { newParams, parameterKind, parsedParameter, revisionOptions } from "./subpipelines.js";

export default function SubpipelineSettings({ api, base, params, problems, idPrefix, onChange }) {
  const listing = useSubpipelines(api, base);
  const entry = listing.find(
    (item) => item.id === Number(params.pipeline) || item.name === params.pipeline,
  );
  const given = params.parameters ?? {};
  // A loop gives its file parameter each file's path: not set here.
  const settable = Object.entries(entry?.parameters ?? {}).filter(
    ([name]) => name !== params.parameter,
  );
  const change = (next, key) => onChange({ ...params, ...next }, key);
  const portsDiffer =
    entry &&
    (JSON.stringify(entry.inputs.map((p) => p.name)) !== JSON.stringify(params.inputs ?? []) ||
      JSON.stringify(entry.outputs.map((p) => p.name)) !== JSON.stringify(params.outputs ?? []));
  return (
    <div className="pw-subpipeline-settings">
      <div className="pw-field">
        <label className="pw-label" htmlFor={`${idPrefix}-pipeline`}>
          Pipeline
        </label>
        <div className="pw-subpipeline-choice">
          <select
            id={`${idPrefix}-pipeline`}
            value={entry ? entry.id : ""}
            onChange={(event) => {
              const chosen = listing.find((item) => item.id === Number(event.target.value));
              if (chosen) change(newParams(chosen), "pipeline");
            }}
          >
            {entry ? null : (
              <option value="">{String(params.pipeline ?? "choose a pipeline")}</option>
            )}
            {listing.map((item) => (
              <option key={item.id} value={item.id}>
                {item.name}
              </option>
            ))}
          </select>
          {entry ? (
            <a
              className="pw-button"
              href={`/pipelines/${entry.id}/`}
              target="_blank"
              rel="noopener"
              title={`Open '${entry.name}' in a new tab`}
            >
              Open
            </a>
          ) : null}
        </div>
        <FieldMessages messages={messagesAtField(problems, "params.pipeline")} />
      </div>
      <div className="pw-field">
        <label className="pw-label" htmlFor={`${idPrefix}-revision`}>
          Revision
        </label>
        <select
          id={`${idPrefix}-revision`}
          value={String(params.revision ?? "latest")}
          onChange={(event) => {
            const value = event.target.value;
            change({ revision: value === "latest" ? value : Number(value) }, "revision");
          }}
        >
          {revisionOptions(entry).map((option) => (
            <option key={option.value} value={String(option.value)}>
              {option.label}
            </option>
          ))}
        </select>
        <FieldMessages messages={messagesAtField(problems, "params.revision")} />
      </div>
      {entry ? (
        <p className="pw-muted pw-small">
          Inputs: {entry.inputs.map((p) => p.name).join(", ") || "none"} · outputs:{" "}
          {entry.outputs.map((p) => p.name).join(", ") || "none"}
          {portsDiffer ? (
            <>
              {" "}
              <button
                type="button"
                onClick={() =>
                  change(
                    {
                      inputs: entry.inputs.map((p) => p.name),
                      outputs: entry.outputs.map((p) => p.name),
                    },
                    "ports",
                  )
                }
              >
                Update ports
              </button>
            </>
          ) : null}
        </p>
      ) : null}
      <FieldMessages
        messages={[
          ...messagesAtField(problems, "params.inputs"),
          ...messagesAtField(problems, "params.outputs"),
        ]}
      />
      {settable.length ? (
        <fieldset className="pw-fieldset">
          <legend className="pw-label">Parameters</legend>
          {settable.map(([name, fallback]) => (
            <ParameterField
              key={name}
              id={`${idPrefix}-parameter-${name}`}
              name={name}
              fallback={fallback}
              value={given[name]}
              messages={messagesAtField(problems, `params.parameters.${name}`)}
              onChange={(value) => {
                const parameters = { ...given };
                if (value === undefined) delete parameters[name];
                else parameters[name] = value;
                change({ parameters }, `parameters.${name}`);
              }}
            />
          ))}
        </fieldset>
      ) : null}
    </div>
  );
}

function ParameterField({ id, name, fallback, value, messages, onChange }) {
  const kind = parameterKind(fallback);
  const shown = (given) => (kind === "json" ? JSON.stringify(given) : String(given));
  return (
    <div className="pw-field">
      <label className="pw-label" htmlFor={id}>
        {name} <span className="pw-muted">({kind})</span>
      </label>
      {kind === "boolean" ? (
        <select
          id={id}
          value={value === undefined ? "" : String(value)}
          onChange={(event) =>
            onChange(event.target.value === "" ? undefined : event.target.value === "true")
          }
        >
          <option value="">default ({String(fallback)})</option>
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      ) : (
        <input
          id={id}
          type="text"
          inputMode={kind === "integer" || kind === "number" ? "decimal" : undefined}
          placeholder={`default: ${shown(fallback)}`}
          value={value === undefined ? "" : shown(value)}
          aria-invalid={messages.length > 0 || undefined}
          onChange={(event) =>
            onChange(
              event.target.value === "" ? undefined : parsedParameter(kind, event.target.value),
            )
          }
        />
      )}
      <FieldMessages messages={messages} />
    </div>
  );
}
