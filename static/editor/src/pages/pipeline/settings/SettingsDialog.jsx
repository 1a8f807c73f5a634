// Pipeline settings: description, concurrency, stop on error, retries, retry delay, timeout,
// log level, backend, reuse of results and parameters (name → default value), and the
// pipeline's schedules (saved apart, at once). The server's
// problems at a setting
// (`config.<field>`, `config.parameters.<name>`) show at its input, the others above them.

import "./settings.css";
import { Fragment, useState } from "react";
import { describeProblem, messagesAtSetting, otherSettingProblems } from "../document/problems.js";
import {
  dictFromRows,
  jsonishText,
  parseJsonish,
  rowsFromDict,
  scalarText,
} from "../form/schemaForm.js";
import Dialog from "../../../ui/Dialog.jsx";
import { FieldMessages } from "../form/Field.jsx";
import SchedulesSection from "./SchedulesSection.jsx";
import TriggersSection from "./TriggersSection.jsx";
import FilingSection from "./FilingSection.jsx";
import NotificationSettings from "./NotificationSettings.jsx";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const LEVELS = ["debug", "info", "warning", "error"];
const BACKENDS = [
  ["auto", "Automatic"],
  ["duckdb", "DuckDB"],
  ["pandas", "pandas"],
];
// The settings with an input of their own; a parameter's row shows those at its name.
const SHOWN = [
  "max_concurrency",
  "stop_on_error",
  "retries",
  "retry_delay_s",
  "timeout_s",
  "log_level",
  "backend",
  "cache",
];

/** Edits a copy of `meta`; `onApply(nextMeta)` takes it over. `problems`: the pipeline's
 * problems that no node has, from the server. `filing` (`{folder, tags}`) is saved apart,
 * `onFiled` told. */
export default function SettingsDialog({
  meta,
  problems,
  onApply,
  onClose,
  api,
  pipelineId,
  readOnly,
  filing,
  onFiled,
}) {
  const config = meta.config ?? {};
  const [description, setDescription] = useState(meta.description ?? "");
  const [concurrency, setConcurrency] = useState(scalarText(config.max_concurrency));
  const [stopOnError, setStopOnError] = useState(config.stop_on_error ?? true);
  const [retries, setRetries] = useState(scalarText(config.retries ?? 0));
  const [retryDelay, setRetryDelay] = useState(scalarText(config.retry_delay_s ?? 1));
  const [timeout, setTimeoutValue] = useState(scalarText(config.timeout_s));
  const [logLevel, setLogLevel] = useState(config.log_level ?? "info");
  const [backend, setBackend] = useState(config.backend ?? "auto");
  const [cache, setCache] = useState(config.cache ?? true);
  const [parameters, setParameters] = useState(() =>
    rowsFromDict(config.parameters).map((row) => ({ key: row.key, text: jsonishText(row.value) })),
  );
  const messagesAt = (setting) => messagesAtSetting(problems, setting);
  const invalid = (setting) => messagesAt(setting).length > 0 || undefined;
  const shown = [
    ...SHOWN,
    ...parameters.filter((row) => row.key !== "").map((row) => `parameters.${row.key}`),
  ];
  const badNames = parameters
    .filter((row) => row.key !== "" && !NAME.test(row.key))
    .map((row) => row.key);
  const apply = (event) => {
    event.preventDefault();
    if (badNames.length) return;
    const numberOrNull = (text) => (text.trim() === "" ? null : Number(text));
    onApply({
      ...meta,
      description,
      config: {
        ...config,
        max_concurrency: numberOrNull(concurrency),
        stop_on_error: stopOnError,
        retries: Number(retries || 0),
        retry_delay_s: Number(retryDelay || 0),
        timeout_s: numberOrNull(timeout),
        log_level: logLevel,
        backend,
        cache,
        parameters: dictFromRows(
          parameters.map((row) => ({ key: row.key, value: parseJsonish(row.text) })),
        ),
      },
    });
  };
  return (
    <Dialog title="Pipeline settings" onClose={onClose} wide>
      <form id="pw-settings-form" onSubmit={apply} className="pw-settings">
        <FieldMessages
          messages={otherSettingProblems(problems, shown).map((problem) =>
            describeProblem(problem),
          )}
        />
        <div className="pw-field">
          <label className="pw-label" htmlFor="pw-description">
            Description
          </label>
          <textarea
            id="pw-description"
            rows={2}
            value={description}
            onChange={(event) => setDescription(event.target.value)}
          />
        </div>
        <div className="pw-grid-2">
          <div className="pw-field">
            <label className="pw-label" htmlFor="pw-concurrency">
              Concurrency
            </label>
            <input
              id="pw-concurrency"
              aria-invalid={invalid("max_concurrency")}
              type="number"
              min={1}
              max={1024}
              placeholder="automatic"
              value={concurrency}
              onChange={(event) => setConcurrency(event.target.value)}
            />
            <FieldMessages messages={messagesAt("max_concurrency")} />
            <p className="pw-hint">
              Nodes that may run at the same time; empty: as many as the machine has cores.
            </p>
          </div>
          <div className="pw-field">
            <label className="pw-label" htmlFor="pw-timeout">
              Timeout (s)
            </label>
            <input
              id="pw-timeout"
              aria-invalid={invalid("timeout_s")}
              type="number"
              min={0}
              step="any"
              placeholder="none"
              value={timeout}
              onChange={(event) => setTimeoutValue(event.target.value)}
            />
            <FieldMessages messages={messagesAt("timeout_s")} />
            <p className="pw-hint">Per node attempt; empty: no limit.</p>
          </div>
          <div className="pw-field">
            <label className="pw-label" htmlFor="pw-retries">
              Retries
            </label>
            <input
              id="pw-retries"
              aria-invalid={invalid("retries")}
              type="number"
              min={0}
              max={100}
              value={retries}
              onChange={(event) => setRetries(event.target.value)}
            />
            <FieldMessages messages={messagesAt("retries")} />
          </div>
          <div className="pw-field">
            <label className="pw-label" htmlFor="pw-retry-delay">
              Retry delay (s)
            </label>
            <input
              id="pw-retry-delay"
              aria-invalid={invalid("retry_delay_s")}
              type="number"
              min={0}
              step="any"
              value={retryDelay}
              onChange={(event) => setRetryDelay(event.target.value)}
            />
            <FieldMessages messages={messagesAt("retry_delay_s")} />
          </div>
          <div className="pw-field pw-field-check">
            <label htmlFor="pw-stop-on-error">
              <input
                id="pw-stop-on-error"
                type="checkbox"
                checked={stopOnError}
                onChange={(event) => setStopOnError(event.target.checked)}
              />
              <span>Stop on error</span>
            </label>
            <p className="pw-hint">Off: nodes that do not depend on a failed one still run.</p>
            <FieldMessages messages={messagesAt("stop_on_error")} />
          </div>
          <div className="pw-field pw-field-check">
            <label htmlFor="pw-cache">
              <input
                id="pw-cache"
                type="checkbox"
                checked={cache}
                onChange={(event) => setCache(event.target.checked)}
              />
              <span>Reuse results</span>
            </label>
            <p className="pw-hint">
              A run reuses the stored result of every node that did not change since it ran, and
              runs only what changed. Off: every run runs everything and stores nothing.
            </p>
            <FieldMessages messages={messagesAt("cache")} />
          </div>
          <div className="pw-field">
            <label className="pw-label" htmlFor="pw-log-level">
              Log level
            </label>
            <select
              id="pw-log-level"
              aria-invalid={invalid("log_level")}
              value={logLevel}
              onChange={(event) => setLogLevel(event.target.value)}
            >
              {LEVELS.map((level) => (
                <option key={level}>{level}</option>
              ))}
            </select>
            <FieldMessages messages={messagesAt("log_level")} />
          </div>
          <div className="pw-field">
            <label className="pw-label" htmlFor="pw-backend">
              Backend
            </label>
            <select
              id="pw-backend"
              aria-invalid={invalid("backend")}
              value={backend}
              onChange={(event) => setBackend(event.target.value)}
            >
              {BACKENDS.map(([name, label]) => (
                <option key={name} value={name}>
                  {label}
                </option>
              ))}
            </select>
            <p className="pw-hint">
              Automatic: DuckDB runs the nodes it can once the inputs are large enough to pay for
              it. The Plan tab shows where each node runs.
            </p>
            <FieldMessages messages={messagesAt("backend")} />
          </div>
        </div>
        <div className="pw-field">
          <div className="pw-label">Parameters</div>
          <p className="pw-hint">
            Use them in settings as {"${name}"}; a run may give other values.
          </p>
          <div className="pw-rows">
            {parameters.map((row, index) => (
              <Fragment key={index}>
                <div className="pw-row pw-row-pair">
                  <input
                    aria-label={`Parameter ${index + 1} name`}
                    placeholder="name"
                    value={row.key}
                    onChange={(event) =>
                      setParameters(
                        parameters.map((old, at) =>
                          at === index ? { ...old, key: event.target.value } : old,
                        ),
                      )
                    }
                  />
                  <input
                    aria-label={`Parameter ${index + 1} default value`}
                    placeholder="default value"
                    value={row.text}
                    onChange={(event) =>
                      setParameters(
                        parameters.map((old, at) =>
                          at === index ? { ...old, text: event.target.value } : old,
                        ),
                      )
                    }
                  />
                  <button
                    type="button"
                    className="pw-icon-button"
                    aria-label="Remove"
                    onClick={() => setParameters(parameters.filter((_, at) => at !== index))}
                  >
                    ×
                  </button>
                </div>
                {row.key !== "" ? (
                  <FieldMessages messages={messagesAt(`parameters.${row.key}`)} />
                ) : null}
              </Fragment>
            ))}
            <button
              type="button"
              className="pw-add"
              onClick={() => setParameters([...parameters, { key: "", text: "" }])}
            >
              + Add parameter
            </button>
          </div>
          {badNames.length ? (
            <p className="pw-field-problems" role="alert">
              A parameter name starts with a letter or _ and holds only letters, digits and _:{" "}
              {badNames.join(", ")}
            </p>
          ) : null}
        </div>
        {filing ? (
          <FilingSection
            api={api}
            pipelineId={pipelineId}
            filing={filing}
            readOnly={readOnly}
            onSaved={onFiled}
          />
        ) : null}
        <SchedulesSection api={api} pipelineId={pipelineId} readOnly={readOnly} />
        <TriggersSection api={api} pipelineId={pipelineId} readOnly={readOnly} />
      </form>
      {api ? <NotificationSettings api={api} pipelineId={pipelineId} /> : null}
      {/* At the bottom, below every section: Apply takes the settings above; schedules and
          notifications are saved by their own buttons. */}
      <div className="pw-dialog-actions pw-dialog-footer">
        <button type="button" onClick={onClose}>
          Close
        </button>
        <button
          type="submit"
          form="pw-settings-form"
          className="pw-primary"
          disabled={badNames.length > 0}
        >
          Apply
        </button>
      </div>
    </Dialog>
  );
}
