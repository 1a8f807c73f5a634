"""The columns of a stored result, and how two of them differ.

A stored result is a Parquet file; its columns are read from the file's footer alone (no row
is read), each with its public type name, so that a column that became `float` where it was
`integer` reads as a type change in the words the editor uses everywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from runtime.tables.frames import public_type


@dataclass(frozen=True, slots=True)
class StoredColumn:
    """A column of a stored result: its name and its type (public name, else Arrow's)."""

    name: str
    type: str


def stored_columns(path: Path) -> list[StoredColumn]:
    """The columns of the Parquet file at `path`, in order (reads only its footer)."""
    return columns_of(pq.read_schema(path))


def columns_of(schema: pa.Schema) -> list[StoredColumn]:
    """The columns of an Arrow schema, each with its public type name where it has one."""
    return [
        StoredColumn(field.name, public_type(field.type) or str(field.type)) for field in schema
    ]


def column_changes(before: list[StoredColumn], after: list[StoredColumn]) -> dict:
    """`{added, removed, changed}`: columns only `after` has, only `before` has (both as
    `{name, type}`), and those whose type changed (`{name, from, to}`), each in its side's
    order."""
    old = {column.name: column.type for column in before}
    new = {column.name: column.type for column in after}
    return {
        "added": [{"name": c.name, "type": c.type} for c in after if c.name not in old],
        "removed": [{"name": c.name, "type": c.type} for c in before if c.name not in new],
        "changed": [
            {"name": c.name, "from": old[c.name], "to": c.type}
            for c in after
            if c.name in old and old[c.name] != c.type
        ],
    }
