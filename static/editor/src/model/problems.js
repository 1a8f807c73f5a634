// Validation problems from the server (`{code, node, field, message}`), placed where the
// editor shows them: on a node, at a params field, or for the whole pipeline.

/** A problem's field as a dotted params path (`params.mappings[1].expression` → `mappings.1.expression`), or null. */
export function paramsPath(field) {
  if (!field || !(field === "params" || field.startsWith("params."))) return null;
  return field
    .slice("params".length)
    .replace(/\[(\d+)\]/g, ".$1")
    .replace(/^\./, "");
}

/** `{byNode: {id: [problem]}, pipeline: [problem]}`. */
export function groupProblems(problems) {
  const byNode = {};
  const pipeline = [];
  for (const problem of problems ?? []) {
    if (problem.node) (byNode[problem.node] ??= []).push(problem);
    else pipeline.push(problem);
  }
  return { byNode, pipeline };
}

/** The messages of the problems at exactly one of the params paths `keys`. */
export function messagesAt(problems, keys) {
  return (problems ?? [])
    .filter((problem) => keys.includes(paramsPath(problem.field)))
    .map((problem) => problem.message);
}

/** The problems no params field shows: about ports, the operator, unknown settings, … */
export function generalProblems(problems, paramsSchema) {
  const known = new Set(Object.keys(paramsSchema?.properties ?? {}));
  return (problems ?? []).filter((problem) => {
    const path = paramsPath(problem.field);
    return path === null || path === "" || !known.has(path.split(".")[0]);
  });
}

/** How a problem reads in a list: "field: message". */
export function describeProblem(problem, withNode = false) {
  const place = [withNode ? problem.node : null, problem.field].filter(Boolean).join(".");
  return place ? `${place}: ${problem.message}` : problem.message;
}
