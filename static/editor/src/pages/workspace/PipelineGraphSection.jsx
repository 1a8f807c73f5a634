// The graph of the workspace's pipelines on its page: which pipeline reads what another
// writes (detected from their paths and tables, or declared), drawn by the server with
// Graphviz (`/api/workspaces/<slug>/pipeline-graph.svg`) and listed in words beside it.

import { useEffect, useState } from "react";

export default function PipelineGraphSection({ api, slug }) {
  const url = `/api/workspaces/${encodeURIComponent(slug)}/pipeline-graph`;
  const [graph, setGraph] = useState(null);
  const [error, setError] = useState("");
  useEffect(() => {
    api.get(url).then(setGraph, (failure) => setError(failure.message));
  }, [api, url]);
  const names = new Map((graph?.nodes ?? []).map((node) => [node.id, node.name]));
  return (
    <section className="pw-workspace-section" aria-labelledby="pw-pipeline-graph">
      <h2 id="pw-pipeline-graph">Pipelines and their dependencies</h2>
      <p className="pw-muted pw-small">
        An arrow goes from a pipeline to one that reads what it writes: found from their files and
        tables, or declared (dashed).{" "}
        <a href="/docs/dependencies/" target="_blank" rel="noreferrer">
          How dependencies are found
        </a>
      </p>
      {error ? (
        <p className="pw-alert" role="alert">
          The graph could not be loaded: {error}
        </p>
      ) : null}
      {graph?.nodes.length ? (
        <img className="pw-pipeline-graph" src={`${url}.svg`} alt="Graph of the pipelines" />
      ) : null}
      {graph && !graph.edges.length ? (
        <p className="pw-muted pw-workspace-empty">No pipeline reads what another writes.</p>
      ) : null}
      <ul className="pw-small">
        {graph?.edges.map((edge) => (
          <li key={`${edge.upstream}-${edge.downstream}`}>
            <a href={`/pipelines/${edge.downstream}/`}>{names.get(edge.downstream)}</a> reads{" "}
            <a href={`/pipelines/${edge.upstream}/`}>{names.get(edge.upstream)}</a>
            {edge.via.length ? (
              <span className="pw-muted">
                {" "}
                through {edge.via.map((via) => via.name).join(", ")}
              </span>
            ) : null}
            {edge.declared ? (
              <span className="pw-muted"> (declared{edge.note ? `: ${edge.note}` : ""})</span>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
