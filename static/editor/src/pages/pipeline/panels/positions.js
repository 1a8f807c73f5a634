// What an incremental input's stored position says, in words for the node's panel
// (the positions themselves are runtime/incremental.py's).

/** "id = 1042", "3 files", or null when the position is of no known shape. */
export function positionText(position) {
  if (position && typeof position === "object" && "column" in position) {
    return `${position.column} = ${position.value}`;
  }
  if (
    position &&
    typeof position === "object" &&
    position.files &&
    typeof position.files === "object"
  ) {
    const count = Object.keys(position.files).length;
    return `${count.toLocaleString("en-US")} file${count === 1 ? "" : "s"}`;
  }
  return null;
}

/** "read up to id = 1042 at 03:10, run #12" for a stored position (`GET …/position`). */
export function describeStoredPosition(stored, locale = undefined) {
  const what = positionText(stored.position) ?? "an unknown position";
  const when = new Date(stored.updated_at);
  const time = Number.isNaN(when.getTime())
    ? ""
    : ` at ${when.toLocaleTimeString(locale, { hour: "2-digit", minute: "2-digit", hour12: false })}`;
  return `read up to ${what}${time}, run #${stored.run_number}`;
}

/** Whether a node's params ask its input to read incrementally. */
export function isIncremental(params) {
  return Boolean(params?.incremental && typeof params.incremental === "object");
}
