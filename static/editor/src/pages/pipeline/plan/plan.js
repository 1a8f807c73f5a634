// The plan view's model: from the server's plan (`GET …/plan`: segments, nodes left on
// pandas and why when the backend lowers, eliminated and merged nodes) to how each card is
// marked, and the legend.

import { SEPARATOR, subpipelineMark } from "../subpipelines/subpipelines.js";

/** Segment outlines take their colour from this many tones (editor.css `.pw-plan-tone-N`). */
export const PLAN_TONES = 4;

/**
 * `{byNode, legend}`: `byNode[id]` is `{kind, backend, segment, tone, label, title}` with
 * `kind` "segment", "pandas", "eliminated" or "merged"; `legend` is one entry per segment,
 * then pandas, eliminated and merged with their counts (only those that occur).
 * Eliminated and merged win over a place on a backend: those nodes do not run at all.
 */
export function planMarks(plan) {
  const byNode = {};
  const legend = plan.segments.map((segment, index) => {
    const tone = index % PLAN_TONES;
    const title = `${segment.id} on ${segment.backend}: ${segment.reason}`;
    for (const id of segment.nodes)
      byNode[id] = {
        kind: "segment",
        backend: segment.backend,
        segment: segment.id,
        tone,
        label: segment.backend,
        title,
      };
    return {
      kind: "segment",
      tone,
      label: `${segment.id} · ${segment.backend}`,
      count: segment.nodes.length,
      title,
    };
  });
  const fallbacks = plan.fallbacks ?? {};
  for (const id of plan.pandas)
    byNode[id] = {
      kind: "pandas",
      backend: "pandas",
      label: "pandas",
      title:
        id in fallbacks
          ? `runs on pandas, not DuckDB: ${fallbacks[id]}`
          : "runs on pandas, node by node",
    };
  for (const [id, reason] of Object.entries(plan.eliminated))
    byNode[id] = { kind: "eliminated", label: "not run", title: `not run: ${reason}` };
  for (const [id, kept] of Object.entries(plan.merged))
    byNode[id] = { kind: "merged", label: `= ${kept}`, title: `computed once with ${kept}` };
  const counts = countKinds(byNode);
  for (const [outer, entry] of Object.entries(plan.subpipelines ?? {}))
    if (!outer.includes(SEPARATOR)) byNode[outer] = subpipelineMark(byNode, entry);
  const others = [
    { kind: "pandas", label: "pandas, node by node" },
    { kind: "eliminated", label: "not run" },
    { kind: "merged", label: "computed once with another node" },
  ];
  for (const entry of others)
    if (counts[entry.kind])
      legend.push({ ...entry, count: counts[entry.kind], title: entry.label });
  return { byNode, legend };
}

function countKinds(byNode) {
  const counts = {};
  for (const mark of Object.values(byNode)) counts[mark.kind] = (counts[mark.kind] ?? 0) + 1;
  return counts;
}

/** The class names of a card marked `mark` (none outside the plan view). */
export function planClasses(mark) {
  if (!mark) return "";
  return ` pw-plan-${mark.kind}${mark.kind === "segment" ? ` pw-plan-tone-${mark.tone}` : ""}`;
}

/** The query string of a plan request: the backend chosen in the panel, if any. */
export const planQuery = (backend) => (backend ? `?backend=${encodeURIComponent(backend)}` : "");

const REUSED = "reused from the cache";

/**
 * What a run would do with each node, as the plan tab's table lists it (`python -m runtime
 * explain`'s "result store" lines): `[{id, label, verdict, reason}]` in the plan's order,
 * `verdict` "will run", "reused from run #n" (or "reused") or "not run". `labels` maps ids to
 * the canvas' labels. Empty when the pipeline's result store is off.
 */
export function reuseRows(plan, labels = {}) {
  const reuse = plan.reuse ?? {};
  const reusedFrom = plan.reused_from ?? {};
  const rows = Object.entries(reuse).map(([id, why]) => {
    if (!why.startsWith(REUSED)) return { id, verdict: "will run", reason: why };
    const number = reusedFrom[id];
    const reason =
      why.slice(REUSED.length).replace(/^:\s*/, "") || "its inputs and settings did not change";
    return { id, verdict: number ? `reused from run #${number}` : "reused", reason };
  });
  if (rows.length)
    for (const [id, why] of Object.entries(plan.eliminated ?? {}))
      if (!(id in reuse)) rows.push({ id, verdict: "not run", reason: why });
  return rows.map((row) => ({ ...row, label: labels[row.id] || row.id }));
}
