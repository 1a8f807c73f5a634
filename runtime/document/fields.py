"""Typed field kinds for operator `Params` models.

A field's kind changes two things: how `${parameter}` substitution treats it (see
`runtime.document.parameters`) and how the editor draws it (through the JSON Schema `format`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import AfterValidator, Field


class FieldKind:
    """Marker placed in a field's `Annotated` metadata."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"FieldKind({self.name!r})"


EXPRESSION = FieldKind("expression")
VERBATIM = FieldKind("verbatim")


def _parses(text: str) -> str:
    from runtime.expressions import parse  # the expression module imports pandas; fields stay light

    parse(text)
    return text


Expression = Annotated[
    str,
    EXPRESSION,
    AfterValidator(_parses),
    Field(min_length=1, json_schema_extra={"format": "expression"}),
]
"""Text in the expression language; a parameter inside it becomes a quoted literal."""

DataPath = Annotated[str, Field(min_length=1, json_schema_extra={"format": "path"})]
"""A file path, relative to the data root."""


@dataclass(frozen=True)
class FileEndings:
    """Marks an input's path field that may also name a folder, meaning its files whose names
    end in one of `endings` (lower case), or a pattern (see `runtime.io.file_patterns`)."""

    endings: tuple[str, ...]


def file_endings(metadata: list) -> tuple[str, ...] | None:
    """The endings of a path field that may name several files (None: it names one)."""
    return next((item.endings for item in metadata if isinstance(item, FileEndings)), None)


VerbatimText = Annotated[str, VERBATIM, Field(json_schema_extra={"format": "sql"})]
"""Text that parameters never touch (SQL: its values are bound instead)."""


def field_kind(metadata: list) -> FieldKind | None:
    """The `FieldKind` among a pydantic field's metadata, if any."""
    for item in metadata:
        if isinstance(item, FieldKind):
            return item
    return None
