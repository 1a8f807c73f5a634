// What a real conflict shows side by side: for each thing both people changed differently
// (the server's `conflicts`), the fields where their version and mine differ.

import { shownValue } from "../versions/versionDiff.js";

const NODE_FIELDS = ["label", "operator", "retries", "timeout_s", "expect"];

/** `[{id, label, reason, rows: [{field, theirs, mine}]}]`, values as text (shownValue). */
export function conflictRows(conflicts, theirs, mine) {
  return (conflicts ?? []).map((conflict) => ({
    id: conflict.id,
    label: conflict.label,
    reason: conflict.reason,
    rows: (conflict.kind === "pipeline"
      ? [pipelineRow(conflict.id, theirs, mine)]
      : itemRows(conflict, theirs, mine)
    ).map((row) => ({ ...row, theirs: shownValue(row.theirs), mine: shownValue(row.mine) })),
  }));
}

function pipelineRow(path, theirs, mine) {
  const at = (document) => path.split(".").reduce((value, key) => value?.[key], document);
  return { field: path, theirs: at(theirs), mine: at(mine) };
}

function itemRows(conflict, theirs, mine) {
  const kind = `${conflict.kind}s`;
  const find = (document) => (document?.[kind] ?? []).find((item) => item.id === conflict.id);
  const mineItem = find(mine);
  const theirItem = find(theirs);
  if (!mineItem || !theirItem) {
    return [
      {
        field: conflict.kind,
        theirs: theirItem ? "kept" : "removed",
        mine: mineItem ? "kept" : "removed",
      },
    ];
  }
  const rows = NODE_FIELDS.filter((field) => field in mineItem || field in theirItem).map(
    (field) => ({ field, theirs: theirItem[field], mine: mineItem[field] }),
  );
  const params = new Set([
    ...Object.keys(theirItem.params ?? {}),
    ...Object.keys(mineItem.params ?? {}),
  ]);
  for (const key of params) {
    rows.push({ field: key, theirs: theirItem.params?.[key], mine: mineItem.params?.[key] });
  }
  if ("text" in mineItem || "text" in theirItem)
    rows.push({ field: "text", theirs: theirItem.text, mine: mineItem.text });
  return rows.filter((row) => JSON.stringify(row.theirs) !== JSON.stringify(row.mine));
}
