"""One stored result (a Parquet file) read a page at a time: sorted, filtered and summarised.

After a run, the Data tab shows any node's result without loading the table: each request is
one or a few DuckDB queries over the file, in a session that may read only that file (the
duckdb backend's locked-down session), with a memory limit past which sorts and aggregates
spill, and stopped (`interrupt`) past a time limit. Nothing a user writes is pasted into SQL:
the sort column is checked against the file's columns and quoted, and the filter is an
expression in the pipeline's language lowered by `to_sql_condition`, its literals bound.

Belongs here: reading one Parquet file for display. Does not belong here: finding the file
(the result store), permissions, or recomputing a result that is not stored.
"""

from __future__ import annotations

import decimal
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from runtime.backends.duckdb.messages import readable
from runtime.backends.duckdb.session import open_session
from runtime.budget import Budget
from runtime.errors import NotLowerable
from runtime.expressions.errors import ExpressionError
from runtime.expressions.sql_parts import identifier
from runtime.expressions.to_sql import to_sql_condition
from runtime.tables.frames import public_type, to_pandas
from runtime.tables.json_rows import json_rows, json_value
from runtime.tables.schema import Column, Schema

MAX_LIMIT = 1_000
"""The most rows one page holds."""
TIMEOUT_S = 10.0
"""How long one request's queries may take before they are stopped."""
BUDGET = Budget(memory_bytes=256 << 20, threads=2)
"""What one request may use: past this memory, a sort or a distinct count spills to disk."""
EXACT_DISTINCT_ROWS = 1_000_000
"""Up to this many rows, distinct values are counted exactly; past it, estimated (DuckDB's
HyperLogLog: a few percent off, in fixed memory and one pass)."""
TOP_DISTINCT = 100_000
"""The most distinct values a column may have for its most frequent values to be counted (a
column of unique values has none, and counting them would take a group per row)."""
BINS = 10
TOP_VALUES = 10
_NUMBERS = ("integer", "float", "decimal")
_ROW_NUMBER = "file_row_number"


class ResultQueryError(ValueError):
    """A request the result cannot answer: `field` ("sort", "filter", "offset", "limit") says
    which part of it is wrong."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field


class ResultTimeout(ResultQueryError):
    """The queries took longer than their time limit and were stopped."""


@dataclass(frozen=True)
class ResultPage:
    """Rows `offset` to `offset + len(rows)` of a result, after its filter and sort."""

    columns: list[dict]
    rows: list[list]
    total_rows: int
    offset: int
    limit: int

    def to_json(self) -> dict:
        return {
            "columns": self.columns,
            "rows": self.rows,
            "total_rows": self.total_rows,
            "offset": self.offset,
            "limit": self.limit,
        }


@dataclass(frozen=True)
class ColumnStats:
    """One column's summary: values, nulls, distinct values, range, and a histogram."""

    name: str
    type: str
    count: int
    nulls: int
    distinct: int
    distinct_estimated: bool
    """Whether `distinct` is an estimate (results past `EXACT_DISTINCT_ROWS` rows)."""
    min: object = None
    max: object = None
    histogram: list[dict] = field(default_factory=list)
    """Numbers (decimals too, their edges exact text): `{low, high, count}` per equal-width
    bin; otherwise the most frequent values,
    `{value, count}`, most frequent first."""

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "type": self.type,
            "count": self.count,
            "nulls": self.nulls,
            "distinct": self.distinct,
            "distinct_estimated": self.distinct_estimated,
            "min": self.min,
            "max": self.max,
            "histogram": self.histogram,
        }


def page(
    path: Path,
    offset: int = 0,
    limit: int = 100,
    sort: str | None = None,
    filter: str | None = None,
    *,
    timeout_s: float = TIMEOUT_S,
    spill_root: Path | None = None,
) -> ResultPage:
    """Rows `offset` … `offset + limit` of the Parquet file at `path`, sorted by `sort` (a
    column, descending with a leading `-`) and kept where `filter` is true."""
    if limit < 1 or limit > MAX_LIMIT:
        raise ResultQueryError(f"limit must be between 1 and {MAX_LIMIT}", "limit")
    if offset < 0:
        raise ResultQueryError("offset must be 0 or more", "offset")
    result = _Result.of(path)
    where, params = result.where(filter)
    source, order = result.order(sort)
    with _session(path, timeout_s, spill_root) as connection:
        if where:
            total_rows = _one(connection, f"SELECT count(*) FROM {result.source}{where}", params)[0]
        else:
            total_rows = result.rows
        rows = []
        if offset < total_rows:
            query = f"SELECT {result.select} FROM {source}{where}{order} LIMIT ? OFFSET ?"
            table = connection.sql(query, params=[*params, limit, offset]).to_arrow_table()
            rows = json_rows(to_pandas(table))
    return ResultPage(result.columns_json(), rows, total_rows, offset, limit)


def stats(
    path: Path,
    filter: str | None = None,
    *,
    timeout_s: float = TIMEOUT_S,
    spill_root: Path | None = None,
) -> list[ColumnStats]:
    """Each column's count, nulls, distinct values, min, max and histogram, over the rows of
    the Parquet file at `path` where `filter` is true."""
    result = _Result.of(path)
    where, params = result.where(filter)
    if not result.schema.columns:
        return []
    estimated = result.rows > EXACT_DISTINCT_ROWS
    distinct = "approx_count_distinct({})" if estimated else "count(DISTINCT {})"
    with _session(path, timeout_s, spill_root) as connection:
        parts = []
        for column in result.schema.columns:
            value = identifier(column.name)
            parts += [
                f"count({value})",
                distinct.format(value),
                f"min({value})",
                f"max({value})",
            ]
        query = f"SELECT count(*), {', '.join(parts)} FROM {result.source}{where}"
        summary = _one(connection, query, params)
        total, found = summary[0], []
        for index, column in enumerate(result.schema.columns):
            count, distinct, low, high = summary[1 + 4 * index : 5 + 4 * index]
            if column.type in _NUMBERS:
                histogram = _bins(connection, result, column, where, params, low, high)
            elif distinct <= TOP_DISTINCT:
                histogram = _top(connection, result, column, where, params)
            else:
                histogram = []
            found.append(
                ColumnStats(
                    column.name,
                    result.types[column.name],
                    count,
                    total - count,
                    distinct,
                    estimated,
                    json_value(low),
                    json_value(high),
                    histogram,
                )
            )
    return found


def _bins(connection, result, column: Column, where: str, params, low, high) -> list[dict]:
    """Counts in at most `BINS` equal-width bins from `low` to `high`; integers in bins of
    whole numbers, each from its `low` to its `high` included."""
    if low is None:
        return []
    name = identifier(column.name)
    if column.type == "integer":
        width = max(1, -(-(high - low + 1) // BINS))  # ceiling division, exact on any int
        count = -(-(high - low + 1) // width)
        bin_of = f"CAST((CAST({name} AS HUGEINT) - ?) // ? AS BIGINT)"
        keep, bounds = f"{name} IS NOT NULL", (low, width)
        edges = [(low + i * width, min(high, low + (i + 1) * width - 1)) for i in range(count)]
    else:
        with decimal.localcontext(prec=80):  # a decimal's edges exact, past 38 digits
            width = (high - low) / BINS
        count = BINS if width else 1
        bin_of = f"least(CAST(floor(({name} - ?) / ?) AS BIGINT), {count - 1})"
        keep = f"isfinite({name})" if column.type == "float" else f"{name} IS NOT NULL"
        bounds = (low, width or 1)
        with decimal.localcontext(prec=80):
            edges = [
                (low + i * width, high if i == count - 1 else low + (i + 1) * width)
                for i in range(count)
            ]
    query = (
        f"SELECT {bin_of} AS bin, count(*) FROM {result.source}{where}"
        f"{' AND' if where else ' WHERE'} {keep} GROUP BY bin"
    )
    counts = dict(connection.execute(query, (*bounds, *params)).fetchall())
    return [
        {"low": json_value(first), "high": json_value(last), "count": counts.get(index, 0)}
        for index, (first, last) in enumerate(edges)
    ]


def _top(connection, result, column: Column, where: str, params) -> list[dict]:
    """The `TOP_VALUES` most frequent values, ties broken by value."""
    value = identifier(column.name)
    query = (
        f"SELECT {value} AS v, count(*) AS n FROM {result.source}{where}"
        f"{' AND' if where else ' WHERE'} {value} IS NOT NULL "
        f"GROUP BY v ORDER BY n DESC, v LIMIT {TOP_VALUES}"
    )
    return [
        {"value": json_value(item), "count": count}
        for item, count in connection.execute(query, params).fetchall()
    ]


@dataclass(frozen=True)
class _Result:
    """A Parquet file's columns, as the engine reads them, and how to query it."""

    schema: Schema
    """The columns the engine knows the type of (those a filter and the statistics use)."""
    types: dict[str, str]
    """Every column's type: the engine's name, or Arrow's for one the engine does not use."""
    rows: int
    path: str

    @classmethod
    def of(cls, path: Path) -> _Result:
        try:
            metadata = pq.read_metadata(path)
            arrow = metadata.schema.to_arrow_schema()
        except (pa.ArrowInvalid, OSError) as error:
            raise ResultQueryError("the stored result cannot be read as Parquet") from error
        types, columns = {}, []
        for item in arrow:
            name = public_type(item.type)
            types[item.name] = name or str(item.type)
            if name is not None:
                columns.append(Column(item.name, name))
        return cls(Schema(tuple(columns)), types, metadata.num_rows, str(path))

    @property
    def select(self) -> str:
        return ", ".join(identifier(name) for name in self.types) or "*"

    def columns_json(self) -> list[dict]:
        return [{"name": name, "type": kind} for name, kind in self.types.items()]

    @property
    def source(self) -> str:
        """The file as a table, with NaN as null (as the engine holds it), so that a filter,
        a sort and the statistics treat NaN as the rest of the engine does."""
        return self._read("read_parquet(?)", "")

    def _read(self, reader: str, extra: str) -> str:
        floats = [column.name for column in self.schema.columns if column.type == "float"]
        if not floats and not extra:
            return reader
        # Not NULLIF(x, NaN): DuckDB 2.0.1 drops it over a Parquet scan (its statistics
        # leave NaN out), and the NaN stays.
        values = [
            f"CASE WHEN isnan({identifier(name)}) THEN NULL ELSE {identifier(name)} END "
            f"AS {identifier(name)}"
            if name in floats
            else identifier(name)
            for name in self.types
        ]
        selected = ", ".join([*values, extra] if extra else values)
        return f"(SELECT {selected} FROM {reader}) AS result"

    def where(self, text: str | None) -> tuple[str, tuple]:
        """` WHERE …` and its parameters (after the file's path) for `filter`, or none."""
        if not text or not text.strip():
            return "", (self.path,)
        try:
            condition = to_sql_condition(text, self.schema)
        except ExpressionError as error:
            raise ResultQueryError(f"filter: {error}", "filter") from error
        except NotLowerable as error:
            message = f"filter cannot run on a stored result: {error}"
            raise ResultQueryError(message, "filter") from error
        return f" WHERE {condition.sql}", (self.path, *condition.params)

    def order(self, sort: str | None) -> tuple[str, str]:
        """The source to read and ` ORDER BY …` for `sort`: ties keep the file's order (the
        file's row numbers break them, unless the file has a column of their name), as does
        no sort (the session preserves it)."""
        if not sort:
            return self.source, ""
        name = sort[1:] if sort.startswith("-") else sort
        if name not in self.types:
            known = ", ".join(f"'{item}'" for item in list(self.types)[:20])
            message = f"sort: there is no column '{name}'; the columns: {known}"
            raise ResultQueryError(message, "sort")
        direction = "DESC" if sort.startswith("-") else "ASC"
        order = f" ORDER BY {identifier(name)} {direction} NULLS LAST"
        if _ROW_NUMBER in self.types:
            return self.source, order
        reader = f"read_parquet(?, {_ROW_NUMBER} = true)"
        return self._read(reader, _ROW_NUMBER), f"{order}, {_ROW_NUMBER}"


def _one(connection, query: str, params) -> tuple:
    """The one row `query` answers (fetched to the end, which frees the connection)."""
    return connection.execute(query, params).fetchall()[0]


@contextmanager
def _session(path: Path, timeout_s: float, spill_root: Path | None) -> Iterator:
    """A session that reads only `path`, interrupted after `timeout_s`; DuckDB's errors
    become `ResultQueryError`s without server paths."""
    with tempfile.TemporaryDirectory(prefix="pw-pages-", dir=spill_root) as spill:
        connection = open_session([Path(path)], Path(spill), BUDGET)
        timer = threading.Timer(timeout_s, connection.interrupt)
        timer.start()
        try:
            yield connection
        except duckdb.InterruptException as error:
            raise ResultTimeout(
                f"reading the stored result took longer than {timeout_s:g} s and was stopped; "
                "try a simpler filter or no sort",
            ) from error
        except (duckdb.OutOfMemoryException, MemoryError) as error:
            raise ResultQueryError(
                "reading the stored result needed more memory than a page may use; "
                "try a simpler filter or no sort"
            ) from error
        except duckdb.Error as error:
            raise ResultQueryError(readable(str(error), {str(path): "the result"})) from error
        finally:
            timer.cancel()
            connection.close()
