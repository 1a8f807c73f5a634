"""Table schemas: the columns an operator outputs, before anything runs.

Operators describe their output as a `Schema` so the editor can show columns and catch
mistakes early. The six type names are the public vocabulary used wherever a type is
written in a pipeline (`dtypes`, `cast`, `transform`'s `type`); a column may also be a
`decimal`, as files and databases hold exact numbers (money), which no param converts to yet.
Nothing here touches data except `schema_of`, which reads the types of a real DataFrame.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal

from runtime.lazy import pa, pd

TypeName = Literal["string", "integer", "float", "boolean", "date", "datetime"]
TYPE_NAMES: tuple[str, ...] = ("string", "integer", "float", "boolean", "date", "datetime")
"""The types a pipeline writes (`dtypes`, `cast`, `transform`'s `type`)."""
ColumnType = TypeName | Literal["decimal"]
COLUMN_TYPES: tuple[str, ...] = (*TYPE_NAMES, "decimal")
"""The types a column can have: the written ones and `decimal` (exact numbers read from files
and databases, held as Arrow's decimal128 of the source's precision and scale)."""


def a_type(type_name: str) -> str:
    """`type_name` with its article, as messages name a type: "an integer", "a string"."""
    return f"{'an' if type_name[:1].lower() in 'aeiou' else 'a'} {type_name}"


@dataclass(frozen=True, slots=True)
class Column:
    """One column: its name, its type name and whether it may hold nulls."""

    name: str
    type: ColumnType
    nullable: bool = True

    def to_json(self) -> dict:
        return {"name": self.name, "type": self.type, "nullable": self.nullable}


@dataclass(frozen=True, slots=True)
class Schema:
    """An ordered list of columns, looked up by name."""

    columns: tuple[Column, ...]

    @classmethod
    def of(cls, *columns: Column) -> Schema:
        return cls(tuple(columns))

    @property
    def names(self) -> list[str]:
        return [column.name for column in self.columns]

    def get(self, name: str) -> Column | None:
        for column in self.columns:
            if column.name == name:
                return column
        return None

    def __contains__(self, name: object) -> bool:
        return any(column.name == name for column in self.columns)

    def to_json(self) -> list[dict]:
        return [column.to_json() for column in self.columns]

    @classmethod
    def from_json(cls, data: list[dict]) -> Schema:
        """The schema `to_json` wrote."""
        return cls(tuple(Column(item["name"], item["type"], item["nullable"]) for item in data))


def type_name_of(dtype) -> ColumnType:
    """Map a pandas dtype to the public type name (unknown kinds read as `string`)."""
    if isinstance(dtype, pd.ArrowDtype) and pa.types.is_date(dtype.pyarrow_dtype):
        return "date"
    if is_decimal_dtype(dtype):
        return "decimal"
    if pd.api.types.is_bool_dtype(dtype):
        return "boolean"
    if pd.api.types.is_integer_dtype(dtype):
        return "integer"
    if pd.api.types.is_float_dtype(dtype):
        return "float"
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return "datetime"
    return "string"


@cache
def date_dtype():
    """How a `date` column is held: Arrow's date32, so dates never pick up a time of day."""
    return pd.ArrowDtype(pa.date32())


def is_decimal_dtype(dtype) -> bool:
    """Whether a pandas dtype holds a `decimal` column."""
    return isinstance(dtype, pd.ArrowDtype) and pa.types.is_decimal(dtype.pyarrow_dtype)


def schema_of(frame: pd.DataFrame) -> Schema:
    """The schema of a real DataFrame (every column nullable unless it has no nulls)."""
    return Schema(
        tuple(
            Column(str(name), type_name_of(frame[name].dtype), bool(frame[name].isna().any()))
            for name in frame.columns
        )
    )
