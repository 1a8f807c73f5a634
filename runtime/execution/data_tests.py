"""Data tests: a node's `expect` checks evaluated on the frames its ports produced.

Checks run on the materialised pandas frame, whatever backend computed it (a DuckDB segment
hands a checked node's ports out of its query: runtime/execution/tasks.py), each as one
vectorised pass over its columns: `unique` is pandas' hash-based `duplicated`, `matches` runs
RE2 over the whole column (runtime/io/regex.py: linear time, no backtracking). A value that is
not set passes every check but `not_null`, which is there to catch it.

Each check gives a result (a JSON-safe dict): its `check`, `port`, `columns`, `severity`,
`status` (passed, warned or failed), the rows it looked at, how many offended (`failing`,
None for a check of the whole port: row count, freshness), a `message` and up to
`SAMPLE_ROWS` offending rows. A failed `fail` check fails the node (`ChecksFailed`).

Belongs here: what a check means on rows. Does not belong here: the checks' shape
(runtime/document/expectations.py) or when they run (runtime/execution/attempts.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from runtime.document.expectations import (
    Fresh,
    Golden,
    InRange,
    InSet,
    Matches,
    NotNull,
    References,
    RowCount,
    Unique,
)
from runtime.errors import MemberError, OperatorError
from runtime.io.paths import FileArea
from runtime.io.regex import whole_matches
from runtime.lazy import pd
from runtime.tables.json_rows import json_rows

SAMPLE_ROWS = 5
SAMPLE_COLUMNS = 20
"""A sample shows the checked columns, then others up to this many: runs keep it per node."""
GOLDEN_MAX_BYTES = 200 * 2**20
"""The largest golden file read: a comparison is for test data, not for a warehouse."""

FrameOf = Callable[[str, str], "pd.DataFrame | None"]
"""The frame of a (node, port) the run produced, or None when it has none."""


class ChecksFailed(MemberError):
    """A node's `fail` checks did not hold: the node fails, with every check's result."""

    retryable = False

    def __init__(self, node: str, results: list[dict]):
        failed = [result for result in results if result["status"] == "failed"]
        detail = "; ".join(f"node '{node}': {_with_sample(result)}" for result in failed)
        super().__init__(detail, node)
        self.results = results


def _with_sample(result: dict) -> str:
    """A failed check's message and its offending rows, the checked columns of each."""
    sample = result.get("sample")
    if not sample:
        return result["message"]
    shown = result["columns"] or sample["columns"]
    places = [sample["columns"].index(name) for name in shown]
    rows = [{shown[i]: row[place] for i, place in enumerate(places)} for row in sample["rows"]]
    return f"{result['message']}, e.g. {json.dumps(rows, default=str)}"


def run_checks(
    node_id: str,
    checks: Sequence,
    frame_of: FrameOf,
    files: FileArea,
    now: datetime | None = None,
) -> list[dict]:
    """Every check of `node_id` evaluated, in the document's order; raises nothing."""
    now = now or datetime.now(UTC)
    return [_result(node_id, check, frame_of, files, now) for check in checks]


def raise_on_failure(node_id: str, results: list[dict]) -> None:
    """`ChecksFailed` when a `fail` check failed."""
    if any(result["status"] == "failed" for result in results):
        raise ChecksFailed(node_id, results)


def warnings_of(node_id: str, results: list[dict]) -> list[str]:
    """The log lines of the `warn` checks that did not hold."""
    warned = [result for result in results if result["status"] == "warned"]
    return [f"node '{node_id}': {result['message']}" for result in warned]


def counts(results: list[dict]) -> dict[str, int]:
    """How many checks passed, warned and failed (the node card's badge)."""
    return {
        status: sum(1 for result in results if result["status"] == status)
        for status in ("passed", "warned", "failed")
    }


def _result(node_id: str, check, frame_of: FrameOf, files: FileArea, now: datetime) -> dict:
    columns = check.columns_read()
    found: dict[str, Any] = {
        "check": check.check, "port": check.port, "columns": columns, "severity": check.severity,
    }  # fmt: skip
    frame = frame_of(node_id, check.port)
    try:
        if frame is None:
            raise OperatorError(f"the node has no output port '{check.port}'")
        missing = [column for column in columns if column not in frame.columns]
        if missing:
            raise OperatorError(
                f"port '{check.port}' has no column '{missing[0]}'; it has "
                f"{', '.join(map(str, frame.columns)) or 'none'}"
            )
        failing, total, what = _EVALUATE[type(check)](check, frame, frame_of, files, now)
    except (OperatorError, ValueError, TypeError) as error:
        failing, total, what = None, None, f"could not run: {error}"
        found["error"] = True
    held = what is None
    found["rows"] = total
    found["failing"] = None if failing is None else int(failing.sum())
    found["status"] = "passed" if held else "failed" if check.severity == "fail" else "warned"
    found["message"] = _message(check, columns, held, what)
    sample = None
    if failing is not None and frame is not None and not held:
        shown = [*columns, *(name for name in frame.columns if name not in columns)]
        sample = frame.loc[failing, shown[:SAMPLE_COLUMNS]].head(SAMPLE_ROWS)
    if sample is not None and len(sample):
        names = [str(name) for name in sample.columns]
        found["sample"] = {"columns": names, "rows": json_rows(sample)}
    return found


def _message(check, columns: list[str], held: bool, what: str | None) -> str:
    on = f" on {', '.join(columns)}" if columns else ""
    port = "" if check.port == "out" else f" of port {check.port}"
    return f"{check.check}{on}{port} " + ("holds" if held else f"failed: {what}")


def _offending(failing, total: int, wording: str) -> str | None:
    """None when no row offends; else '3 of 10 rows <wording>'."""
    count = int(failing.sum())
    return None if count == 0 else f"{count:,} of {total:,} rows {wording}"


def _not_null(check: NotNull, frame, frame_of, files, now):
    failing = frame[check.column].isna().to_numpy()
    return failing, len(frame), _offending(failing, len(frame), "are null")


def _unique(check: Unique, frame, frame_of, files, now):
    failing = frame.duplicated(check.columns, keep=False).to_numpy()
    wording = "share their values with another row"
    return failing, len(frame), _offending(failing, len(frame), wording)


def _in_set(check: InSet, frame, frame_of, files, now):
    values = frame[check.column]
    failing = (values.notna() & ~values.isin(check.values)).to_numpy()
    shown = ", ".join(map(repr, check.values[:10])) + (", …" if len(check.values) > 10 else "")
    return failing, len(frame), _offending(failing, len(frame), f"are not one of {shown}")


def _in_range(check: InRange, frame, frame_of, files, now):
    values = frame[check.column]
    low, high = (_bound(values, bound) for bound in (check.min, check.max))
    failing = pd.Series(False, index=values.index)
    if low is not None:
        failing |= values < low
    if high is not None:
        failing |= values > high
    failing = (failing & values.notna()).to_numpy()
    limits = (
        f"between {check.min} and {check.max}"
        if None not in (low, high)
        else (f"at least {check.min}" if high is None else f"at most {check.max}")
    )
    return failing, len(frame), _offending(failing, len(frame), f"are not {limits}")


def _bound(values, bound):
    """A range's end as the column compares: a date column's as a time."""
    if bound is None or not pd.api.types.is_datetime64_any_dtype(values.dtype):
        return bound
    stamp = pd.Timestamp(bound)
    zone = getattr(values.dtype, "tz", None)
    if zone is not None and stamp.tzinfo is None:
        return stamp.tz_localize(zone)
    return stamp.tz_localize(None) if zone is None and stamp.tzinfo is not None else stamp


def _matches(check: Matches, frame, frame_of, files, now):
    values = frame[check.column]
    failing = values.notna().to_numpy() & ~whole_matches(values, check.pattern)
    return failing, len(frame), _offending(failing, len(frame), f"do not match {check.pattern!r}")


def _row_count(check: RowCount, frame, frame_of, files, now):
    rows = len(frame)
    low = check.min is not None and rows < check.min
    high = check.max is not None and rows > check.max
    bounds = " and ".join(
        part for part in (
            None if check.min is None else f"at least {check.min:,}",
            None if check.max is None else f"at most {check.max:,}",
        ) if part
    )  # fmt: skip
    return None, rows, f"{rows:,} rows, expected {bounds}" if low or high else None


def _references(check: References, frame, frame_of, files, now):
    other = frame_of(check.node, check.to_port)
    if other is None:
        raise OperatorError(f"the run has no rows of node '{check.node}' port '{check.to_port}'")
    if check.to_column not in other.columns:
        raise OperatorError(f"node '{check.node}' has no column '{check.to_column}'")
    values = frame[check.column]
    failing = (values.notna() & ~values.isin(other[check.to_column].dropna().unique())).to_numpy()
    target = f"{check.node}.{check.to_column}"
    return failing, len(frame), _offending(failing, len(frame), f"are not found in {target}")


def _fresh(check: Fresh, frame, frame_of, files, now):
    values = pd.to_datetime(frame[check.column], utc=True, errors="coerce")
    latest = values.max()
    age = timedelta(**{check.unit: check.max_age})
    if pd.isna(latest):
        return None, len(frame), "no date or time is set"
    if latest.to_pydatetime() < now - age:
        age = f"{check.max_age:g} {check.unit}"
        return None, len(frame), f"the latest value, {latest.isoformat()}, is older than {age}"
    return None, len(frame), None


def _golden(check: Golden, frame, frame_of, files, now):
    location = files.resolve(check.path)
    if not location.is_file():
        raise OperatorError(f"golden file '{check.path}' not found")
    if location.stat().st_size > GOLDEN_MAX_BYTES:
        limit = GOLDEN_MAX_BYTES // 2**20
        raise OperatorError(f"golden file '{check.path}' is larger than {limit} MiB")
    expected = pd.read_csv(location, dtype=str, keep_default_na=False)
    actual = _as_text(frame)
    if list(expected.columns) != list(actual.columns):
        return (
            None,
            len(frame),
            (
                f"columns {', '.join(actual.columns)} differ from the golden file's "
                f"{', '.join(expected.columns)}"
            ),
        )
    if check.ordered:
        same_length = len(expected) == len(actual)
        aligned = expected.reindex(range(len(actual)))
        failing = (~(actual.reset_index(drop=True) == aligned).all(axis=1)).to_numpy()
        extra = 0 if same_length else abs(len(expected) - len(actual))
    else:
        failing, extra = _unmatched(actual, expected)
    count = int(failing.sum()) + extra
    if count == 0:
        return failing, len(frame), None
    return (
        failing,
        len(frame),
        (
            f"{count:,} rows differ from '{check.path}' ({len(actual):,} rows here, "
            f"{len(expected):,} there)"
        ),
    )


def _as_text(frame) -> pd.DataFrame:
    """The frame as a CSV file would hold it, read back as text (so both sides compare alike)."""
    import io

    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    buffer.seek(0)
    return pd.read_csv(buffer, dtype=str, keep_default_na=False)


def _unmatched(actual, expected):
    """Rows of `actual` without a partner in `expected` (a row repeated twice needs two), and
    how many of `expected`'s rows are left without one."""
    names = [str(name) for name in actual.columns]
    left = actual.set_axis(names, axis=1)
    right = expected.set_axis(names, axis=1)
    left = left.assign(__copy=left.groupby(names, sort=False).cumcount())
    right = right.assign(__copy=right.groupby(names, sort=False).cumcount())
    joined = left.merge(right, on=[*names, "__copy"], how="outer", indicator=True)
    only_left = joined["_merge"] == "left_only"
    unmatched = joined[only_left][[*names, "__copy"]]
    keys = left.merge(unmatched, on=[*names, "__copy"], how="left", indicator=True)
    failing = (keys["_merge"] == "both").to_numpy()
    return failing, int((joined["_merge"] == "right_only").sum())


_EVALUATE = {
    NotNull: _not_null, Unique: _unique, InSet: _in_set, InRange: _in_range, Matches: _matches,
    RowCount: _row_count, References: _references, Fresh: _fresh, Golden: _golden,
}  # fmt: skip
