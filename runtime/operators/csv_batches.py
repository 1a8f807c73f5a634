"""Rows spilled to a file (runtime/execution/streams.py) written to CSV a batch at a time, byte
for byte as `csv_output` writes their whole frame.

pandas decides two things over a whole frame rather than row by row, so both are worked out
over every batch before the first is written: the line ending (CRLF when any text holds a
carriage return, `holds_carriage_return`) and how a column of datetimes without a time zone
is written (`2024-01-31` when every value is at midnight, else with seconds, and with
milli-, micro- or nanoseconds when any value has them). For the second, each batch is written
with one more row holding, in each such column, the value that decides it over the whole
column, and that row's line is dropped.

Belongs here: writing batches as the frame would be written. Does not belong here: the
atomic publishing of the file (runtime/operators/atomic.py).
"""

from __future__ import annotations

import io
from pathlib import Path

from runtime.lazy import np, pd
from runtime.operators.context import NodeContext
from runtime.tables.spilled import SpilledRows

_DAY_SECONDS = 86_400
_FRACTIONS = (10**9, 10**6, 10**3)
"""Parts of a second by which pandas chooses how many digits a datetime column shows."""


def write_csv_batches(
    ctx: NodeContext, rows: SpilledRows, temporary: Path, appending: bool, write_frame
) -> None:
    """Write `rows` to `temporary` batch by batch: `write_frame(frame, handle, header,
    lineterminator)` writes one batch as the whole frame's write would."""
    ending = "\r\n" if holds_carriage_return_spilled(rows) else "\n"
    probe = deciding_row(rows)
    with temporary.open("a" if appending else "w", encoding="utf-8", newline="") as handle:
        for index, frame in enumerate(rows.frames()):
            ctx.check_cancelled()
            header = index == 0 and not appending
            if probe is None:
                write_frame(frame, handle, header, ending)
                continue
            text = io.StringIO()
            write_frame(pd.concat([frame, probe]), text, header, ending)
            written = text.getvalue()
            handle.write(written[: written.rindex(ending, 0, len(written) - len(ending))] + ending)


def holds_carriage_return(frame: pd.DataFrame) -> bool:
    """Whether a name or a text holds a carriage return: Python's CSV writer quotes only
    fields holding a character of the line ending, and every reader ends a row at an
    unquoted one; with CRLF line endings such fields are quoted and read back whole."""
    if any("\r" in str(name) for name in frame.columns):
        return True
    for index, dtype in enumerate(frame.dtypes):
        values = frame.iloc[:, index]
        if isinstance(dtype, pd.StringDtype) and values.str.contains("\r", regex=False).any():
            return True
        if pd.api.types.is_object_dtype(dtype) and any("\r" in str(v) for v in values):
            return True
    return False


def holds_carriage_return_spilled(rows: SpilledRows) -> bool:
    """`holds_carriage_return` of the whole frame, reading only its text columns."""
    empty = rows.empty()
    if holds_carriage_return(empty):  # the names
        return True
    text = [str(name) for name, dtype in empty.dtypes.items() if _is_text(dtype)]
    return bool(text) and any(holds_carriage_return(frame) for frame in rows.frames(text))


def _is_text(dtype) -> bool:
    return isinstance(dtype, pd.StringDtype) or pd.api.types.is_object_dtype(dtype)


def deciding_row(rows: SpilledRows) -> pd.DataFrame | None:
    """A row of nulls but for the datetime columns without a time zone whose way of being
    written some batch would decide otherwise than the whole column: each holds the value
    with the finest part of a second (or a time of day) of its column. None: no such column."""
    empty = rows.empty()
    naive = [str(name) for name, dtype in empty.dtypes.items() if _is_naive_datetime(dtype)]
    if not naive:
        return None
    best: dict[str, tuple[int, object]] = {}
    for frame in rows.frames(naive):
        for name in naive:
            rank, value = _finest(frame[name])
            if rank > best.get(name, (0, None))[0]:
                best[name] = rank, value
    if not best:  # every value at midnight: each batch is written as dates too
        return None
    row = empty.reindex(pd.RangeIndex(1))
    for name, (_, value) in best.items():
        row[name] = pd.Series([value], dtype=empty[name].dtype)
    return row


def _is_naive_datetime(dtype) -> bool:
    return isinstance(dtype, np.dtype) and dtype.kind == "M"


def _finest(values: pd.Series) -> tuple[int, object]:
    """How fine the finest value of a datetime column is (0: midnight, 1: a time of day,
    2 to 4: milli-, micro-, nanoseconds), and that value."""
    unit, _ = np.datetime_data(values.dtype)
    per_second = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}[unit]
    present = values.dropna()
    ticks = present.to_numpy().view("int64")
    steps = [
        (len(_FRACTIONS) + 1 - index, per_second // (fraction // 1000))
        for index, fraction in enumerate(_FRACTIONS)
        if per_second >= fraction
    ]
    for rank, step in [*steps, (1, _DAY_SECONDS * per_second)]:
        hits = np.flatnonzero(ticks % step != 0)
        if len(hits):
            return rank, present.iloc[hits[0]]
    return 0, None
