"""Rows added, removed and changed between two stored results, matched by key columns.

DuckDB reads the two Parquet files in a locked-down session (runtime/backends/duckdb/session.py:
it may read those two files and spill into a folder of its own, nothing else), joins them with
a FULL OUTER JOIN on the keys and counts, in one pass, the rows only the second has (added),
only the first has (removed), and those both have whose other columns differ (changed), with
the first `SAMPLE` rows of each kind in key order. Memory is bounded by a run's budget (the
session's limit: joins spill past it; the web app runs a comparison in a job's process, which
is stopped if it grows past that) and time by `timeout_s`, after which the query is stopped.

Every column is named in the SQL by a quoted identifier or a position (`a0`, `b3`), and the
file paths travel as bound parameters: no text from a document or a request is pasted in.

What counts as the same, decided here once:
- a null key matches a null key (keys are compared with IS NOT DISTINCT FROM);
- two floats are equal when |a - b| ≤ 1e-9 · max(1, |a|, |b|): the same data computed on
  pandas and on DuckDB, or summed in another order, differs in its last bits, and calling
  that a change would bury the real ones. NaN equals NaN; null equals only null;
- a column whose type changed is compared as numbers when both types are numeric, else as
  text; a column only one side has is a schema change, not a row change;
- keys that repeat on a side give no counts (a join would pair such rows arbitrarily, and
  could multiply them): the answer says which key values repeat instead.
"""

from __future__ import annotations

import math
import secrets
import shutil
import threading
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime, time
from decimal import Decimal
from pathlib import Path

import duckdb

from runtime.backends.duckdb.messages import readable
from runtime.backends.duckdb.session import open_session
from runtime.budget import Budget
from runtime.errors import ComparisonError, NotLowerable
from runtime.expressions.sql_parts import identifier
from runtime.results.comparison.columns import StoredColumn, stored_columns

SAMPLE = 20
"""Rows of each kind (added, removed, changed) an answer shows."""
DUPLICATE_EXAMPLES = 5
FLOAT_TOLERANCE = 1e-9
MAX_KEYS = 16
TIMEOUT_S = 120.0
RE_INTERRUPT_S = 0.05
NUMERIC = frozenset({"integer", "float"})


@dataclass(frozen=True)
class Side:
    """One stored result: `name` is how messages name it ("the result of 'write' in run #3")."""

    name: str
    path: Path


def compare_rows(
    a: Side,
    b: Side,
    keys: Sequence[str],
    *,
    spill_dir: Path,
    budget: Budget | None = None,
    timeout_s: float = TIMEOUT_S,
) -> dict:
    """How the rows of `b` differ from those of `a`, matched by `keys` (JSON-ready).

    `{"status": "compared", keys, columns, added, removed, changed, unchanged,
    changed_by_column, samples: {added, removed, changed}}`, or, when a key value repeats on a
    side, `{"status": "duplicate_keys", keys, message, duplicates: {a, b}}`. Raises
    `ComparisonError` (with `field` "keys" for keys at fault) for anything else."""
    keys = _checked_keys(keys)
    columns_a, columns_b = _columns(a), _columns(b)
    for side, columns in ((a, columns_a), (b, columns_b)):
        names = [column.name for column in columns]
        for key in keys:
            if key not in names:
                raise ComparisonError(
                    f"key '{key}' is not a column of {side.name} (its columns: {_listing(names)})",
                    field="keys",
                )
    query = _Query(keys, columns_a, columns_b)
    budget = budget or Budget.from_environment()
    folder = Path(spill_dir) / f"compare-{secrets.token_hex(8)}"
    folder.mkdir(parents=True)
    known = {str(a.path): a.name, str(b.path): b.name}
    try:
        connection = open_session([a.path, b.path], folder, budget)
        try:
            with _deadline(connection, timeout_s) as expired:
                try:
                    return _compared(connection, query, a, b)
                except duckdb.InterruptException:
                    if expired.is_set():
                        raise ComparisonError(
                            f"the comparison took longer than {timeout_s:g} s and was stopped; "
                            "compare smaller results or pick keys that identify rows"
                        ) from None
                    raise
        finally:
            connection.close()
    except (duckdb.OutOfMemoryException, MemoryError):
        raise ComparisonError(
            "the comparison needs more memory than it may use; "
            "compare smaller results or pick fewer columns"
        ) from None
    except duckdb.Error as error:
        raise ComparisonError(readable(str(error), known)) from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _compared(connection, query: _Query, a: Side, b: Side) -> dict:
    duplicates = {
        "a": query.duplicates(connection, "a", a.path),
        "b": query.duplicates(connection, "b", b.path),
    }
    if any(found["values"] for found in duplicates.values()):
        named = [
            f"{side.name} has {found['values']:,} key value(s) on {found['rows']:,} rows"
            for side, found in ((a, duplicates["a"]), (b, duplicates["b"]))
            if found["values"]
        ]
        return {
            "status": "duplicate_keys",
            "keys": query.keys,
            "message": f"the keys ({', '.join(query.keys)}) do not identify one row: "
            + "; ".join(named)
            + " that repeat; pick keys that are unique",
            "duplicates": duplicates,
        }
    return {"status": "compared", "keys": query.keys, **query.differences(connection, a, b)}


class _Query:
    """The SQL of one comparison. Side `a`'s columns are `a0, a1, …` in its file's order,
    `b`'s `b0, b1, …`; `ah` / `bh` are true where a joined row has that side."""

    def __init__(self, keys: list[str], columns_a, columns_b):
        self.keys = keys
        self.columns = {"a": columns_a, "b": columns_b}
        self.at = {
            side: {column.name: index for index, column in enumerate(columns)}
            for side, columns in self.columns.items()
        }
        types_b = {column.name: column.type for column in columns_b}
        self.compared = [
            column.name
            for column in columns_a
            if column.name in types_b and column.name not in keys
        ]
        self.types = {
            name: (column.type, types_b[name])
            for column in columns_a
            if (name := column.name) in types_b
        }

    def _side(self, side: str) -> str:
        """The SELECT reading one side's file, every column under its position's name."""
        projected = [
            f"{_quoted(column.name)} AS {side}{index}"
            for index, column in enumerate(self.columns[side])
        ]
        return f"SELECT {', '.join(projected)}, TRUE AS {side}h FROM read_parquet(?)"

    def _col(self, side: str, name: str) -> str:
        return f"{side}{self.at[side][name]}"

    def _key_struct(self, side: str) -> str:
        packed = ", ".join(f"k{i} := {self._col(side, key)}" for i, key in enumerate(self.keys))
        return f"struct_pack({packed})"

    def duplicates(self, connection, side: str, path: Path) -> dict:
        """`{values, rows, examples}`: key values on more than one row of `side`, the rows
        they are on, and the first few of them."""
        keys = ", ".join(self._col(side, key) for key in self.keys)
        sql = (
            f"WITH side AS ({self._side(side)}), "
            f"repeated AS (SELECT {keys}, count(*) AS n FROM side GROUP BY ALL HAVING n > 1) "
            f"SELECT count(*), coalesce(sum(n), 0), "
            f"min_by({self._key_struct(side)}, {self._key_struct(side)}, {DUPLICATE_EXAMPLES}) "
            "FROM repeated"
        )
        values, rows, examples = connection.execute(sql, [str(path)]).fetchall()[0]
        return {
            "values": values,
            "rows": int(rows),
            "examples": [self._key_values(example) for example in examples or []],
        }

    def differences(self, connection, a: Side, b: Side) -> dict:
        """Counts and samples of the rows added, removed and changed."""
        on = " AND ".join(self._joined_keys(key) for key in self.keys)
        flags = [f"{self._differs(name)} AS d{i}" for i, name in enumerate(self.compared)]
        any_change = " OR ".join(f"d{i}" for i in range(len(self.compared))) or "FALSE"
        by_column = [
            f"count(*) FILTER (WHERE ah AND bh AND d{i})" for i in range(len(self.compared))
        ]
        changed_row = ", ".join(
            [f"k{i} := {self._col('a', key)}" for i, key in enumerate(self.keys)]
            + [
                f"a{i}_ := {self._col('a', name)}, b{i}_ := {self._col('b', name)}, d{i} := d{i}"
                for i, name in enumerate(self.compared)
            ]
        )
        sql = (
            f"WITH a AS ({self._side('a')}), b AS ({self._side('b')}), "
            f"joined AS (SELECT *{''.join(', ' + flag for flag in flags)} "
            f"FROM a FULL OUTER JOIN b ON {on}) "
            "SELECT count(*) FILTER (WHERE ah IS NULL), count(*) FILTER (WHERE bh IS NULL), "
            f"count(*) FILTER (WHERE ah AND bh AND ({any_change})), "
            f"count(*) FILTER (WHERE ah AND bh), "
            f"{self._sample('b')} FILTER (WHERE ah IS NULL), "
            f"{self._sample('a')} FILTER (WHERE bh IS NULL), "
            f"min_by(struct_pack({changed_row}), {self._key_struct('a')}, {SAMPLE}) "
            f"FILTER (WHERE ah AND bh AND ({any_change}))"
            f"{''.join(', ' + count for count in by_column)} FROM joined"
        )
        found = connection.execute(sql, [str(a.path), str(b.path)]).fetchall()[0]
        added, removed, changed, matched, added_rows, removed_rows, changed_rows = found[:7]
        return {
            "columns": self.compared,
            "added": added,
            "removed": removed,
            "changed": changed,
            "unchanged": matched - changed,
            "changed_by_column": {
                name: count for name, count in zip(self.compared, found[7:], strict=True) if count
            },
            "samples": {
                "added": [self._row("b", row) for row in added_rows or []],
                "removed": [self._row("a", row) for row in removed_rows or []],
                "changed": [self._change(row) for row in changed_rows or []],
            },
        }

    def _sample(self, side: str) -> str:
        packed = ", ".join(
            f"{side}{index} := {side}{index}" for index in range(len(self.columns[side]))
        )
        return f"min_by(struct_pack({packed}), {self._key_struct(side)}, {SAMPLE})"

    def _joined_keys(self, key: str) -> str:
        left, right = self._col("a", key), self._col("b", key)
        if self._comparable(key):
            return f"{left} IS NOT DISTINCT FROM {right}"
        return f"CAST({left} AS VARCHAR) IS NOT DISTINCT FROM CAST({right} AS VARCHAR)"

    def _comparable(self, name: str) -> bool:
        """Whether both sides' values compare as they are (same type, or both numbers)."""
        type_a, type_b = self.types[name]
        return type_a == type_b or {type_a, type_b} <= NUMERIC

    def _differs(self, name: str) -> str:
        """SQL that is true where the two sides' values of column `name` differ."""
        left, right = self._col("a", name), self._col("b", name)
        types = set(self.types[name])
        if "float" in types and types <= NUMERIC:
            left, right = f"CAST({left} AS DOUBLE)", f"CAST({right} AS DOUBLE)"
            return (
                f"CASE WHEN {left} IS NOT DISTINCT FROM {right} THEN FALSE "
                f"WHEN {left} IS NULL OR {right} IS NULL THEN TRUE "
                f"WHEN NOT (isfinite({left}) AND isfinite({right})) THEN TRUE "
                f"ELSE NOT (abs({left} - {right}) <= {FLOAT_TOLERANCE!r} * "
                f"greatest(1.0, abs({left}), abs({right}))) END"
            )
        if not self._comparable(name):
            left, right = f"CAST({left} AS VARCHAR)", f"CAST({right} AS VARCHAR)"
        return f"{left} IS DISTINCT FROM {right}"

    def _key_values(self, packed: dict) -> dict:
        return {key: json_value(packed[f"k{i}"]) for i, key in enumerate(self.keys)}

    def _row(self, side: str, packed: dict) -> dict:
        return {
            column.name: json_value(packed[f"{side}{index}"])
            for index, column in enumerate(self.columns[side])
        }

    def _change(self, packed: dict) -> dict:
        return {
            "key": self._key_values(packed),
            "changes": {
                name: {"a": json_value(packed[f"a{i}_"]), "b": json_value(packed[f"b{i}_"])}
                for i, name in enumerate(self.compared)
                if packed[f"d{i}"]
            },
        }


def _checked_keys(keys: Sequence[str]) -> list[str]:
    keys = list(keys)
    if not keys:
        raise ComparisonError("name at least one key column", field="keys")
    if len(keys) > MAX_KEYS:
        raise ComparisonError(f"name at most {MAX_KEYS} key columns", field="keys")
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise ComparisonError(f"key '{repeated[0]}' is named twice", field="keys")
    return keys


def _columns(side: Side) -> list[StoredColumn]:
    try:
        columns = stored_columns(side.path)
    except OSError:
        raise ComparisonError(f"{side.name} cannot be read") from None
    names = [column.name for column in columns]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ComparisonError(f"{side.name} has two columns named '{repeated[0]}'")
    return columns


def _quoted(name: str) -> str:
    try:
        return identifier(name)
    except NotLowerable as error:
        raise ComparisonError(str(error)) from None


def _listing(names: list[str], shown: int = 12) -> str:
    more = len(names) - shown
    listed = ", ".join(names[:shown])
    return f"{listed} and {more} more" if more > 0 else listed or "none"


@contextmanager
def _deadline(connection, seconds: float):
    """Interrupts the connection's queries once `seconds` have passed, again every
    `RE_INTERRUPT_S` until the block ends (an interrupt that comes between two queries is
    lost); yields an event set once the time is up."""
    expired, finished = threading.Event(), threading.Event()

    def stop() -> None:
        if finished.wait(seconds):
            return
        expired.set()
        while not finished.is_set():
            connection.interrupt()
            finished.wait(RE_INTERRUPT_S)

    watcher = threading.Thread(target=stop, name="comparison deadline", daemon=True)
    watcher.start()
    try:
        yield expired
    finally:
        finished.set()
        watcher.join()


def json_value(value):
    """A value DuckDB returned, as JSON can hold it: times as ISO text, non-finite floats and
    decimals as text."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, Decimal | bytes):
        return str(value)
    return value
