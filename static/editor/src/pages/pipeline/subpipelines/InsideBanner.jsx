// The banner over the run inside a sub-pipeline node: which run of which pipeline, at which
// node, the inner pipeline and the revision the run used, how the run is doing; a loop's
// iteration to show; the inner pipeline to edit (a new tab); and the way back.

import "./inside.css";
import { useContext } from "react";
import { useStore } from "../../../lib/store.js";
import { OverlayContext } from "../contexts.js";
import { shownRun } from "../overlay.js";
import { insideTitle, iterationOptions, iterationPath } from "./inside.js";

export default function InsideBanner({ onOpen, onClose }) {
  const overlay = useContext(OverlayContext);
  const inside = useStore(overlay, (value) => value.inside);
  const number = useStore(overlay, (value) => shownRun(value).number);
  const status = useStore(overlay, (value) => shownRun(value).status);
  if (!inside) return null;
  const { inner, loop } = inside;
  return (
    <div className="pw-banner pw-inside-banner" role="status" aria-label="Run inside">
      <span>
        <strong>{insideTitle(inside, number)}</strong>
        {` · '${inner.name}'`}
        {inner.revision != null ? ` @ revision ${inner.revision}` : ""}
        {` · ${status} · read only`}
      </span>
      {loop ? (
        <label className="pw-inside-iteration">
          Iteration{" "}
          <select
            value={loop.iteration}
            onChange={(event) => onOpen(iterationPath(loop, Number(event.target.value)))}
          >
            {iterationOptions(loop).map(({ index, text, title }) => (
              <option key={index} value={index} title={title}>
                {text}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <a
        className="pw-button"
        href={`/pipelines/${inner.id}/`}
        target="_blank"
        rel="noopener"
        title={`Edit '${inner.name}' (its latest revision) in a new tab`}
      >
        Edit '{inner.name}'
      </a>
      <button type="button" onClick={onClose}>
        Back to {inside.pipeline.name}
      </button>
    </div>
  );
}
