// A node's data test results as a run reports them (`metrics.checks`, runtime/execution/
// data_tests.py): counted for the card's badge, and the problems at a node's checks moved to
// where the checks form finds them. Pure functions.

const STATUSES = ["passed", "warned", "failed"];

/** `{passed, warned, failed}` of a node's results, or null when it ran no checks. */
export function checkCounts(checks) {
  if (!Array.isArray(checks) || !checks.length) return null;
  const counts = { passed: 0, warned: 0, failed: 0 };
  for (const check of checks) if (STATUSES.includes(check.status)) counts[check.status] += 1;
  return counts;
}

/** The badge's words: "3 ✓ 1 ! 1 ✗" with only the counts that are not zero. */
export function countsText(counts) {
  const marks = { passed: "✓", warned: "!", failed: "✗" };
  return STATUSES.filter((status) => counts[status])
    .map((status) => `${counts[status]} ${marks[status]}`)
    .join(" ");
}

/** The worst status among the counts (the badge's colour). */
export function worstStatus(counts) {
  return counts.failed ? "failed" : counts.warned ? "warned" : "passed";
}

/** The problems at a node's checks (`expect.0.column`) as the checks form's params paths
 * (`params.expect.0.column`), which its fields show. */
export function checkProblems(problems) {
  return (problems ?? [])
    .filter((problem) => isCheckField(problem.field))
    .map((problem) => ({ ...problem, field: `params.${problem.field}` }));
}

/** Whether a problem's field is one of a node's checks. */
export function isCheckField(field) {
  return field === "expect" || (field ?? "").startsWith("expect.");
}

/** A node's output columns as the view the checks form's column pickers offer (`checked`). */
export function checkedColumns(schemas, port = "out") {
  const columns = schemas?.outputs?.[port];
  return columns ? { views: { checked: columns } } : null;
}
