// A pipeline's folder and tags, in its Settings dialog: the home page groups, shows and
// searches pipelines by them. Saved at once by their own button (`PUT …/filing`), apart from
// the dialog's Apply, as schedules are; they are not part of the document.

import { useState } from "react";
import { FieldMessages } from "../form/Field.jsx";
import { tagsFromText } from "../../home/filing.js";

/** `filing` is `{folder, tags}` as last saved; `onSaved(filing)` gets the server's. */
export default function FilingSection({ api, pipelineId, filing, readOnly, onSaved }) {
  const [folder, setFolder] = useState(filing.folder ?? "");
  const [tags, setTags] = useState((filing.tags ?? []).join(", "));
  const [result, setResult] = useState(null); // {ok, message}
  const changed = folder !== (filing.folder ?? "") || tags !== (filing.tags ?? []).join(", ");
  const save = async () => {
    try {
      const saved = await api.put(`/api/pipelines/${pipelineId}/filing`, {
        folder,
        tags: tagsFromText(tags),
      });
      const filed = { folder: saved.folder, tags: saved.tags };
      setFolder(filed.folder);
      setTags(filed.tags.join(", "));
      setResult({ ok: true, message: "Saved" });
      onSaved(filed);
    } catch (error) {
      setResult({ ok: false, message: error.message });
    }
  };
  return (
    <section className="pw-field pw-filing-settings" aria-label="Folder and tags">
      <div className="pw-label">Folder and tags</div>
      <p className="pw-hint">
        Where the home page lists this pipeline, and the words it is found by. Saved at once.
      </p>
      <div className="pw-grid-2">
        <input
          aria-label="Folder"
          placeholder="Folder, e.g. sales/monthly"
          value={folder}
          maxLength={200}
          disabled={readOnly}
          onChange={(event) => {
            setFolder(event.target.value);
            setResult(null);
          }}
        />
        <input
          aria-label="Tags, separated by commas"
          placeholder="Tags, separated by commas"
          value={tags}
          disabled={readOnly}
          onChange={(event) => {
            setTags(event.target.value);
            setResult(null);
          }}
        />
      </div>
      {readOnly ? null : (
        <p>
          <button type="button" disabled={!changed} onClick={save}>
            Save folder and tags
          </button>{" "}
          {result?.ok ? (
            <span className="pw-muted" role="status">
              {result.message}
            </span>
          ) : null}
        </p>
      )}
      {result && !result.ok ? <FieldMessages messages={[result.message]} /> : null}
    </section>
  );
}
