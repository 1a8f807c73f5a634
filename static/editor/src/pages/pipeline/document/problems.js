// Validation problems from the server (`{code, node, field, message}`), placed where the
// editor shows them: on a node, at a params field, at a pipeline setting (`config.…`, in the
// Settings dialog), or for the whole pipeline.

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

/** The problems at exactly one of the params paths `keys`. */
export function problemsAt(problems, keys) {
  return (problems ?? []).filter((problem) => keys.includes(paramsPath(problem.field)));
}

/** The messages of the problems at exactly one of the params paths `keys`. */
export function messagesAt(problems, keys) {
  return problemsAt(problems, keys).map((problem) => problem.message);
}

/** The node's own fields outside its params, which the side panel shows with their input. */
export const NODE_FIELDS = ["label", "retries", "timeout_s"];

/** The messages of the problems at the node field `field` (one of `NODE_FIELDS`). */
export function messagesAtField(problems, field) {
  return (problems ?? [])
    .filter((problem) => problem.field === field)
    .map((problem) => problem.message);
}

/** A problem's field as a path inside the pipeline's settings (`config.parameters.min_age` →
 * `parameters.min_age`), or null when it is not a setting's. */
export function settingPath(field) {
  return field?.startsWith("config.") ? field.slice("config.".length) : null;
}

const isAtOrInside = (path, at) =>
  path === at || path.startsWith(`${at}.`) || path.startsWith(`${at}[`);

/** The messages of the problems at the setting `at` (a `settingPath`) or inside it: a
 * parameter's row shows those at its name and its value. */
export function messagesAtSetting(problems, at) {
  return (problems ?? [])
    .filter((problem) => {
      const path = settingPath(problem.field);
      return path !== null && isAtOrInside(path, at);
    })
    .map((problem) => problem.message);
}

/** The problems at settings that none of the `shown` settings paths holds (an unknown
 * setting, a removed parameter, the parameters as a whole). */
export function otherSettingProblems(problems, shown) {
  return (problems ?? []).filter((problem) => {
    const path = settingPath(problem.field);
    return path !== null && !shown.some((at) => isAtOrInside(path, at));
  });
}

/** The problem at a node's port (`field` "inputs.<port>" or "outputs.<port>"), or undefined. */
export function portProblem(problems, side, port) {
  return (problems ?? []).find((problem) => problem.field === `${side}.${port}`);
}

/** The problems no field shows: about the operator, unknown settings, … (ports show theirs
 * on the card too, and here, since a handle cannot be read from afar). */
export function generalProblems(problems, paramsSchema) {
  const known = new Set(Object.keys(paramsSchema?.properties ?? {}));
  return (problems ?? []).filter((problem) => {
    if (NODE_FIELDS.includes(problem.field)) return false;
    const path = paramsPath(problem.field);
    return path === null || path === "" || !known.has(path.split(".")[0]);
  });
}

/** How a problem reads in a list: "node: Title: message" when the server titled the field (its
 * message names it already), else "node.field: message". */
export function describeProblem(problem, withNode = false) {
  const field = problem.field_title ? null : problem.field;
  const place = [withNode ? problem.node : null, field].filter(Boolean).join(".");
  return place ? `${place}: ${problem.message}` : problem.message;
}

/** The lines listed under a refusal's message: none for a single problem, which the message
 * already states, else one per problem. */
export function refusalDetails(body) {
  const problems = body?.problems ?? [];
  return problems.length > 1 ? problems.map((problem) => describeProblem(problem, true)) : [];
}
