// An output node's panel: which inputs (files, tables, queries) and which of their columns
// reach what it writes, from the saved pipeline's lineage, and which pipelines read it.

import { useEffect, useState } from "react";
import { inputLines } from "./lineage.js";

/** `node`: the output node's id; `version`: changes when the pipeline is saved again. */
export default function ReachingInputs({ api, base, node, version }) {
  const [found, setFound] = useState({ loading: true, inputs: [], readers: [], error: null });
  useEffect(() => {
    let current = true;
    api.get(`${base}/lineage`).then(
      (answer) => {
        if (!current) return;
        const known = answer.nodes[node];
        const problem = answer.problems.find((each) => each.node) ?? answer.problems[0];
        setFound({
          loading: false,
          inputs: known?.reached_by ?? [],
          readers: known?.read_by ?? [],
          error: known ? null : (problem?.message ?? "its columns are not known yet"),
        });
      },
      (error) =>
        current && setFound({ loading: false, inputs: [], readers: [], error: error.message }),
    );
    return () => {
      current = false;
    };
  }, [api, base, node, version]);
  return (
    <section className="pw-section" aria-label="Which inputs reach it?">
      <div className="pw-section-head">
        <h3>Which inputs reach it?</h3>
      </div>
      {found.loading ? <p className="pw-muted pw-small">Tracing its columns…</p> : null}
      {found.error ? <p className="pw-muted pw-small">Unknown: {found.error}</p> : null}
      {!found.loading && !found.error ? (
        <ul className="pw-small pw-lineage-reaching">
          {found.inputs.length ? (
            inputLines(found.inputs).map((line) => <li key={line}>{line}</li>)
          ) : (
            <li>No input reaches it.</li>
          )}
        </ul>
      ) : null}
      {found.readers.length ? (
        <>
          <p className="pw-small pw-lineage-label">Read by</p>
          <ul className="pw-small pw-lineage-reaching pw-lineage-upstream">
            {found.readers.map((reader) => (
              <li key={`${reader.pipeline}\u0000${reader.input}`}>
                <a href={`/pipelines/${reader.pipeline}/`}>{reader.name}</a> ({reader.input} reads{" "}
                {reader.via})
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
