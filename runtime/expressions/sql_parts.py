"""Pieces of DuckDB SQL text for `to_sql`: fragments that carry their bound parameters.

A `Sql` fragment is text we wrote plus the values of its `?` placeholders, in order. Joining
fragments with `sql()` keeps text and parameters in step, so user values only ever travel as
parameters and user column names only as quoted identifiers.
"""

from __future__ import annotations

from dataclasses import dataclass

from runtime.errors import NotLowerable

from .values import NULL

MAX_SQL_LENGTH = 200_000
"""The longest SQL text one expression may lower to (a few operators repeat an operand)."""

SQL_TYPES = {
    "integer": "BIGINT",
    "float": "DOUBLE",
    "string": "VARCHAR",
    "boolean": "BOOLEAN",
    "date": "DATE",
}
# numpy's int64 arithmetic wraps around: done in HUGEINT, then wrapped to 64 bits the same way
_WRAP_START = "CAST(((("
_WRAP_END = ") + 9223372036854775808) & 18446744073709551615) - 9223372036854775808 AS BIGINT)"


@dataclass(frozen=True)
class Sql:
    """A lowered node: SQL text, its parameters in placeholder order, and its type name."""

    text: str
    params: tuple
    type: str


NULL_SQL = Sql("NULL", (), NULL)
"""A bare null, typed by where it is used (see `cast`)."""


def sql(*parts: str | Sql, type: str = NULL) -> Sql:
    """Parts joined in order: `str` parts are SQL of ours, `Sql` parts bring their params."""
    text = "".join(part if isinstance(part, str) else part.text for part in parts)
    if len(text) > MAX_SQL_LENGTH:
        raise NotLowerable("the expression is too large to run on DuckDB")
    params = tuple(param for part in parts if isinstance(part, Sql) for param in part.params)
    return Sql(text, params, type)


def joined(separator: str, items: list[Sql]) -> list[str | Sql]:
    """`items` with `separator` between them, as parts for `sql()`."""
    parts: list[str | Sql] = []
    for item in items:
        parts += [separator, item] if parts else [item]
    return parts


def param(value: object, type: str) -> Sql:
    """A bound value, cast so DuckDB never guesses its type."""
    return Sql(f"CAST(? AS {SQL_TYPES[type]})", (value,), type)


def cast(item: Sql, type: str) -> Sql:
    """`item` as `type`: a bare null gets the type, an integer or a decimal becomes a float."""
    if item.type == NULL:
        if type == "decimal":  # DuckDB's untyped NULL: a decimal's precision is its data's
            return Sql("NULL", (), type)
        return Sql(f"CAST(NULL AS {SQL_TYPES[type]})", (), type)
    if item.type in ("integer", "decimal") and type == "float":
        return sql("CAST(", item, " AS DOUBLE)", type="float")
    return item


def common_type(*items: Sql, default: str = NULL) -> str:
    """The type checked `items` share (integer and float make float, integer and decimal
    decimal), else `default`."""
    types = {item.type for item in items} - {NULL}
    if not types:
        return default
    if len(types) > 1:  # numbers, as `Checker.common_type` mixes them
        return "float" if "float" in types else "decimal"
    return types.pop()


def finite(item: Sql) -> Sql:
    """A float result with NaN as null: pandas holds NaN as null, DuckDB as a value."""
    return sql("NULLIF(", item, ", ", param(float("nan"), "float"), ")", type="float")


def finite_column(column: Sql) -> Sql:
    """A float column with NaN as null. Not `finite`: over a Parquet scan DuckDB (2.0) judges
    `NULLIF(column, NaN)` from the file's statistics, which leave NaN out, and keeps the NaN."""
    return sql("(CASE WHEN isnan(", column, ") THEN NULL ELSE ", column, " END)", type="float")


def wrapped(*parts: str | Sql) -> Sql:
    """Integer arithmetic `parts` (on HUGEINTs) wrapped to 64 bits."""
    return sql(_WRAP_START, *parts, _WRAP_END, type="integer")


def huge(item: Sql) -> Sql:
    """`item` as a 128-bit integer, in which no 64-bit sum or product overflows."""
    return sql("CAST(", item, " AS HUGEINT)", type="integer")


def identifier(name: str) -> str:
    """`name` as a quoted SQL identifier (embedded quotes doubled)."""
    if "\x00" in name:
        raise NotLowerable("a column name with a NUL character cannot be named in DuckDB SQL")
    return '"' + name.replace('"', '""') + '"'


def string_literal(value: str) -> str:
    """`value` as a SQL string literal (embedded quotes doubled), for constants of our own."""
    return "'" + value.replace("'", "''") + "'"
