"""The pandas reference of `window`: every window function over sorted positions, vectorised.

The rows are put once in (partition, order keys, input position) order by one stable sort.
In that order each partition and each group of peers (rows equal on every order key, nulls
equal) is a run of positions, so a row's frame is a range `[start, end]` of positions, and
each function is an array operation over those ranges: prefix sums and counts, pandas'
rolling windows with explicit bounds (`_Bounds`), or the position of a value to take.
Results go back to input order by the inverse permutation. No loop runs per row.

Meanings, as DuckDB's with the frames the renderer writes: without a `frame`, a function
sees the partition from its start to the current row's last peer (SQL's default RANGE frame;
the whole partition without order keys); with one, rows before and after the current row.
`first`/`last` are the first/last non-null value of the frame (as aggregate's), `lag`/`lead`
the value `offset` rows away within the partition, `default` where there is no such row.

Kept to plain data (lists, dicts) so that a compiled script carries `windowed` as it is.
"""

from __future__ import annotations

import decimal

from runtime.errors import OperatorError
from runtime.lazy import np, pa, pd

RANKINGS = ("row_number", "rank", "dense_rank", "percent_rank")
OFFSETS = ("lag", "lead")


def windowed(frame, partition_by, order_by, nulls_last, calls):
    """`frame` with one column per call (dicts: function, column, name, offset, default,
    frame: [preceding, following] or None), rows in input order; `order_by` holds
    [column, descending] pairs."""
    size = len(frame)
    positions = np.arange(size)
    order = _sorted_positions(frame, partition_by, order_by, nulls_last)
    ordered = frame.take(order).reset_index(drop=True)
    part_new = _new_runs(ordered, partition_by, size)
    peer_new = part_new | _new_runs(ordered, [column for column, _ in order_by], size)
    part_start, part_end = _starts(part_new, positions), _ends(part_new, positions)
    peer_start, peer_end = _starts(peer_new, positions), _ends(peer_new, positions)
    inverse = np.empty(size, dtype=np.int64)
    inverse[order] = positions
    spans = {
        "positions": positions,
        "part": (part_start, part_end),
        "peers": (peer_start, peer_end, np.cumsum(peer_new) - 1),
    }
    columns = {}
    for call in calls:
        values = None if call["column"] is None else _engine_dtype(ordered[call["column"]])
        result = _computed(call, values, spans)
        columns[call["name"]] = pd.Series(result, copy=False).take(inverse).set_axis(frame.index)
    return frame.assign(**columns) if columns else frame


def _sorted_positions(frame, partition_by, order_by, nulls_last):
    """The input positions in (partition, order keys) order, ties in input order."""
    directions = dict.fromkeys(partition_by, False)  # a key named twice sorts by its first
    for column, descending in order_by:
        directions.setdefault(column, descending)
    keys = list(directions)
    if not keys or not len(frame):
        return np.arange(len(frame))
    ascending = [not descending for descending in directions.values()]
    keyed = frame[keys].reset_index(drop=True)
    na_position = "last" if nulls_last else "first"
    ordered = keyed.sort_values(keys, ascending=ascending, na_position=na_position, kind="stable")
    return ordered.index.to_numpy()


def _new_runs(ordered, columns, size):
    """Whether each sorted row starts a new run of rows equal on `columns` (nulls equal)."""
    new = np.zeros(size, dtype=bool)
    if size:
        new[0] = True
    for column in columns:
        codes, _ = pd.factorize(ordered[column], use_na_sentinel=False)
        new[1:] |= codes[1:] != codes[:-1]
    return new


def _starts(new, positions):
    """The first position of each row's run."""
    return np.maximum.accumulate(np.where(new, positions, 0)) if len(new) else positions


def _ends(new, positions):
    """The last position of each row's run."""
    if not len(new):
        return positions
    last = np.append(new[1:], True)
    ends = np.where(last, positions, len(new) - 1)
    return np.minimum.accumulate(ends[::-1])[::-1]


def _engine_dtype(series):
    """`series` with numpy integers and booleans in the engine's nullable dtypes."""
    if series.dtype.kind in "iu":
        return series.astype("Int64")
    if series.dtype.kind == "b":
        return series.astype("boolean")
    return series


def _computed(call, values, spans):
    """One call's values in sorted order."""
    function = call["function"]
    positions = spans["positions"]
    part_start, part_end = spans["part"]
    peer_start, peer_end, peer_id = spans["peers"]
    if function == "row_number":
        return pd.array(positions - part_start + 1, dtype="Int64")
    if function == "rank":
        return pd.array(peer_start - part_start + 1, dtype="Int64")
    if function == "dense_rank":
        return pd.array(peer_id - peer_id[part_start] + 1, dtype="Int64")
    if function == "percent_rank":
        rows = part_end - part_start
        ranked = (peer_start - part_start).astype("float64")
        return np.divide(ranked, rows, out=np.zeros(len(rows)), where=rows > 0)
    if function in OFFSETS:
        step = call["offset"] if function == "lead" else -call["offset"]
        target = positions + step
        inside = (target >= part_start) & (target <= part_end)
        taken = pd.Series(values.array.take(np.where(inside, target, -1), allow_fill=True))
        return taken if call["default"] is None else taken.where(inside, call["default"])
    start, end = _frame(call["frame"], positions, spans["part"], peer_end)
    return _over_frames(function, values, start, end)


def _frame(frame, positions, part, peer_end):
    """Each row's frame `[start, end]` in sorted positions."""
    part_start, part_end = part
    if frame is None:
        return part_start, peer_end
    preceding, following = frame
    start = part_start if preceding is None else np.maximum(part_start, positions - preceding)
    end = part_end if following is None else np.minimum(part_end, positions + following)
    return start, end


def _over_frames(function, values, start, end):
    """An aggregate function over each row's frame (never empty: it holds the row)."""
    if values is None:  # count of rows
        return pd.array(end - start + 1, dtype="Int64")
    present = values.notna().to_numpy()
    if function == "count":
        counts = np.concatenate([[0], np.cumsum(present)])
        return pd.array(counts[end + 1] - counts[start], dtype="Int64")
    if function in ("first", "last"):
        return values.array.take(_first_or_last(function, present, start, end), allow_fill=True)
    if function in ("min", "max"):
        return _extreme(function, values, start, end)
    kind = values.dtype
    if isinstance(kind, pd.ArrowDtype):  # decimals: exact sums, a mean their sum over the count
        sums = _decimal_sums(values, start, end)
        if function == "sum":
            return sums
        return _over_counts(sums.astype("float64"), present, start, end)
    if kind == "Int64":
        sums, rough = _integer_sums(values, start, end)
        fits = bool(np.all(np.abs(rough) < _INT64_LIMIT))
        if function == "sum":
            if not fits:
                error = OperatorError("a window sum leaves the range of 64-bit integers")
                error.retryable = False
                raise error
            return pd.array(sums, dtype="Int64")
        sums = sums if fits else rough  # a mean of huge integers, as DuckDB's, in floats
        return _over_counts(sums, present, start, end)
    floats = values.astype("float64").reset_index(drop=True)
    rolling = floats.rolling(_bounds(start, end + 1), min_periods=0 if function == "sum" else 1)
    return (rolling.sum() if function == "sum" else rolling.mean()).to_numpy()


def _over_counts(sums, present, start, end):
    """Each frame's sum over its count of values, in floats (NaN, null, where it has none)."""
    counts = np.concatenate([[0], np.cumsum(present)])
    counts = counts[end + 1] - counts[start]
    sums = np.asarray(sums, dtype=np.float64)
    return np.divide(sums, counts, out=np.full(len(sums), np.nan), where=counts > 0)


def _bounds(start, end):
    """A pandas window indexer giving each row the window `[start, end)`."""
    from pandas.api.indexers import BaseIndexer

    class Bounds(BaseIndexer):
        def get_window_bounds(self, num_values=0, min_periods=None, center=None, closed=None, step=None):  # fmt: skip  # noqa: E501
            return self.start, self.end

    return Bounds(start=start.astype(np.int64), end=end.astype(np.int64))


def _first_or_last(function, present, start, end):
    """The position of the first (last) non-null value of each frame, -1 where none is."""
    size = len(present)
    positions = np.arange(size)
    if function == "first":
        following = np.where(present, positions, size)[::-1]
        found = np.minimum.accumulate(following)[::-1][start] if size else start
        return np.where(found <= end, found, -1)
    found = np.maximum.accumulate(np.where(present, positions, -1))[end] if size else end
    return np.where(found >= start, found, -1)


def _extreme(function, values, start, end):
    """min or max of each frame, of any orderable type: the values' ranks (one sort) go
    through a rolling min or max, and each row takes a value of the rank found."""
    codes, uniques = pd.factorize(values, sort=True)
    ranks = pd.Series(np.where(codes >= 0, codes, np.nan))
    rolling = ranks.rolling(_bounds(start, end + 1), min_periods=1)
    found = (rolling.min() if function == "min" else rolling.max()).to_numpy()
    holder = np.full(len(uniques) + 1, -1, dtype=np.int64)  # a rank's row; none: -1
    holder[codes[codes >= 0]] = np.flatnonzero(codes >= 0)
    taken = holder[np.where(np.isnan(found), -1, found).astype(np.int64)]
    return values.array.take(taken, allow_fill=True)


_INT64_LIMIT = 2.0**63 * (1 - 1e-12)
"""Float sums at or beyond this may not fit 64 bits (a little below 2**63, for rounding)."""


def _integer_sums(values, start, end):
    """Integer sums of each frame by prefix sums (nulls count as 0), and the same in floats:
    int64 prefix sums wrap around, so a frame's sum is exact whenever it fits 64 bits, and
    the float sums tell where it does not."""
    data = values.fillna(0).to_numpy(dtype=np.int64)
    prefix = np.concatenate([[0], np.cumsum(data)])
    rough = np.concatenate([[0.0], np.cumsum(data, dtype=np.float64)])
    return prefix[end + 1] - prefix[start], rough[end + 1] - rough[start]


def _decimal_sums(values, start, end):
    """Exact sums of decimals, as DuckDB's DECIMAL(38, scale): prefix sums of the unscaled
    integers in int64 when they cannot overflow, else of Python decimals."""
    array = pa.array(values.array)
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    scale, size = array.type.scale, len(array)
    result_type = pa.decimal128(38, scale)
    words = np.frombuffer(array.buffers()[1], dtype=np.int64)
    words = words[2 * array.offset : 2 * (array.offset + size)].reshape(-1, 2)
    present = array.is_valid().to_numpy(zero_copy_only=False)
    low = np.where(present, words[:, 0], 0)
    fits = np.array_equal(np.where(present, words[:, 1], 0), low >> 63)
    if fits and np.abs(low.astype("float64")).sum() < 2.0**62:
        prefix = np.concatenate([[0], np.cumsum(low)])
        sums = prefix[end + 1] - prefix[start]
        data = np.stack([sums, sums >> 63], axis=1).astype(np.int64)
        summed = pa.Array.from_buffers(result_type, size, [None, pa.py_buffer(data.tobytes())])
        return pd.arrays.ArrowExtensionArray(summed)
    with decimal.localcontext(prec=80):  # beyond int64: exact in Python's decimals
        items = [decimal.Decimal(0) if item is None else item for item in array.to_pylist()]
        prefix = np.concatenate([[decimal.Decimal(0)], np.cumsum(np.array(items, dtype=object))])
        sums = prefix[end + 1] - prefix[start]
    return pd.array(list(sums), dtype=pd.ArrowDtype(result_type))
