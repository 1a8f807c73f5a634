"""Typed field kinds for operator `Params` models.

A field's kind changes two things: how `${parameter}` substitution treats it (see
`runtime.parameters`) and how the editor draws it (through the JSON Schema `format`).
"""

from __future__ import annotations

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

VerbatimText = Annotated[str, VERBATIM, Field(json_schema_extra={"format": "sql"})]
"""Text that parameters never touch (SQL: its values are bound instead)."""


def field_kind(metadata: list) -> FieldKind | None:
    """The `FieldKind` among a pydantic field's metadata, if any."""
    for item in metadata:
        if isinstance(item, FieldKind):
            return item
    return None
