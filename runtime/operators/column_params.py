"""The params vocabulary of the processing operators: column names, their types, values.

Shared by the processing families (column_ops, rows, combine, aggregate, validate): the
param types that hold column names and values (`ColumnNames`, `Scalar` ...), each declaring in
its JSON Schema which input port's columns it names (`ColumnOf`), the type a named
column must have, a value written in params converted to a column's type, and result dtypes in
the engine's convention (runtime/tables/frames.py). Whether a named column exists at all is
`runtime/operators/column_names.py`'s job. Each operator writes its checks once, against a `Schema`:
`output_schema` calls them with the predicted input schema and `run` with
`frame_schema(frame)`. Nothing here reads more than one value of a table.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import warnings
from collections import Counter
from collections.abc import Iterable
from typing import Annotated

from pydantic import AfterValidator, BeforeValidator, Field

from runtime.document.fields import Expression
from runtime.errors import ParamsError
from runtime.lazy import pd
from runtime.operators.column_names import require_columns
from runtime.tables.casting import cast_series
from runtime.tables.frames import column_dtypes
from runtime.tables.schema import Column, Schema, TypeName, type_name_of

NUMBERS: tuple[str, ...] = ("integer", "float")

ColumnName = Annotated[str, Field(min_length=1)]
"""A column's name: one the node makes (an output name) or, marked with `ColumnOf`, one it reads."""


class ColumnOf:
    """Marks a param as naming columns of the input port `port`, for the editor's column picker.

    Its JSON Schema (a list's `items`) gets `"format": "column"` and `"x-port": port`; the
    picker offers that port's columns (`*`: the node's first input, for an operator whose ports
    come from its params). Plugins mark their own params the same way (docs/operators.md).
    """

    format = "column"

    def __init__(self, port: str = "in"):
        self.port = port

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.port!r})"

    def __get_pydantic_json_schema__(self, core_schema, handler):
        schema = handler(core_schema)
        marked = schema["items"] if schema.get("type") == "array" else schema
        marked.update({"format": self.format, "x-port": self.port})
        return schema


class ExpressionOver(ColumnOf):
    """Marks an expression param as reading the columns of input port `port` (its completion),
    or of a view the operator gives (`Operator.views`: a join's `joined` row)."""

    format = "expression"


InputColumn = Annotated[ColumnName, ColumnOf("in")]
"""The name of a column of the `in` port."""

InputExpression = Annotated[Expression, ExpressionOver("in")]
"""An expression over the columns of the `in` port."""


def first_repeated(names: Iterable[str]) -> str | None:
    """The first name that occurs more than once in `names`, if any."""
    return next((name for name, count in Counter(names).items() if count > 1), None)


def _no_repeats(names: list[str]) -> list[str]:
    repeated = first_repeated(names)
    if repeated is not None:
        raise ValueError(f"'{repeated}' is listed more than once; list each column once")
    return names


def column_names(port: str = "in"):
    """The type of a list of names of columns of `port`, each listed once."""
    return Annotated[list[ColumnName], AfterValidator(_no_repeats), ColumnOf(port)]


ColumnNames = column_names("in")
"""A list of names of columns of the `in` port, each listed once."""


def _listed(value: object) -> object:
    return [value] if isinstance(value, str) else value


def one_or_more_columns(port: str = "in"):
    """The type of one name of a column of `port` or a non-empty list of them (`"id"` reads as
    `["id"]`)."""
    return Annotated[column_names(port), BeforeValidator(_listed), Field(min_length=1)]


def written(value: object) -> str:
    """A params value as the user wrote it: JSON (`"FR"`, `true`, `2.5`)."""
    return json.dumps(value, ensure_ascii=False)


def _scalar(value: object) -> object:
    if not isinstance(value, str | int | float):  # bool is an int
        raise ValueError(f"{written(value)} is not a text, a number, true or false")
    return value


Scalar = Annotated[str | int | float | bool, BeforeValidator(_scalar)]
"""A single value written in params (never null): it is converted to a column's type later."""


def exactly_one(first: tuple[str, object], second: tuple[str, object]) -> None:
    """Raise `ValueError` unless exactly one of two (name, value) settings is set."""
    (first_name, first_value), (second_name, second_value) = first, second
    if first_value is None and second_value is None:
        raise ValueError(f"set {first_name} or {second_name}")
    if first_value is not None and second_value is not None:
        raise ValueError(f"set {first_name} or {second_name}, not both")


def frame_schema(frame: pd.DataFrame) -> Schema:
    """The column names and types of `frame`, all nullable: what `run` checks params against.

    Unlike `schema_of`, it does not scan the data for nulls, so it costs nothing on big frames.
    """
    dtypes = column_dtypes(frame)
    return Schema(
        tuple(
            Column(str(name), type_name_of(dtype))
            for name, dtype in zip(frame.columns, dtypes, strict=True)
        )
    )


def column_of(field: str, name: str, schema: Schema) -> Column:
    """The column `name` of `schema`, or a `ParamsError` at `field` suggesting a close name."""
    require_columns(field, [name], schema.names)
    return schema.get(name)


def chosen_columns(field: str, names: list[str], schema: Schema) -> list[str]:
    """`names`, checked against `schema`; all of its columns when `names` is empty."""
    require_columns(field, names, schema.names)
    return list(names) or schema.names


def require_type(field: str, column: Column, allowed: Iterable[str], needs: str) -> None:
    """Raise `ParamsError` at `field` unless `column`'s type is one of `allowed`.

    `needs` says what is needed, e.g. "sum needs numbers".
    """
    if column.type not in allowed:
        raise ParamsError(field, f"{needs}, but '{column.name}' is {column.type}")


def with_nullable(schema: Schema, names: Iterable[str], nullable: bool) -> Schema:
    """`schema` with the columns `names` marked as nullable (or not)."""
    names = set(names)
    return Schema(
        tuple(
            dataclasses.replace(column, nullable=nullable) if column.name in names else column
            for column in schema.columns
        )
    )


def cast_value(field: str, value: object, type_name: TypeName, column: str) -> object:
    """A value written in params, converted to `type_name` (for the column `column`).

    Raises `ParamsError` at `field` when it does not convert, or would lose its fraction.
    """
    if type_name == "decimal":
        raise ParamsError(
            field,
            f"column '{column}' is decimal, which takes no value written in params yet; "
            "cast it to float first",
        )
    converted = _converted(type(value), value, type_name)
    if converted is None:
        raise ParamsError(
            field, f"{written(value)} is not a valid {type_name} for column '{column}'"
        )
    return converted


@functools.lru_cache(maxsize=1024)
def _converted(kind: type, value: object, type_name: TypeName) -> object:
    """`value` (of type `kind`: 1, 1.0 and True are equal keys) converted by the engine's own
    casting, or None when it does not convert; kept, as a long chain of nodes may set the
    same value many times and a pandas conversion costs milliseconds."""
    try:
        with warnings.catch_warnings():  # numpy's "invalid value in cast" before the refusal
            warnings.simplefilter("ignore", RuntimeWarning)
            converted = cast_series(pd.Series([value]), type_name).iloc[0]
    except (TypeError, ValueError, OverflowError):  # 2**70 as an integer, year 0 as a date
        return None
    fraction_lost = type_name == "integer" and isinstance(value, float) and not value.is_integer()
    return None if pd.isna(converted) or fraction_lost else converted


_CONVENTIONAL_DTYPES = {"integer": "Int64", "boolean": "boolean", "float": "float64"}
"""By the names pandas gives them, so that naming them does not import pandas."""


def conventional(series: pd.Series) -> pd.Series:
    """`series` in the engine's dtype for its type (int64 becomes Int64, bool boolean ...)."""
    target = _CONVENTIONAL_DTYPES.get(type_name_of(series.dtype))
    return series if target is None or series.dtype == target else series.astype(target)
