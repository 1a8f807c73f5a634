"""The bodies and answers of the pins API (editor/api/pins.py)."""

from __future__ import annotations

from typing import Any

from ninja import Schema
from pydantic import Field

from editor.api.schemas.contract import ObjectId, Timestamp


class PinIn(Schema):
    """A pin from a run's stored result (`run`) or from rows (`rows`): exactly one of them. A
    file is uploaded as a multipart form instead (fields `node` and `file`)."""

    node: str = Field(max_length=200)
    run: ObjectId | None = Field(
        None, description="A run of this pipeline that stored the node's output."
    )
    rows: list[dict[str, Any]] | None = Field(
        None, description="The rows as JSON objects (column → value), as the Data tab edits them."
    )


class PinOut(Schema):
    node: str
    source: str = Field(description="Where its rows came from: a run, rows edited, a file.")
    rows: int
    columns: list[str]
    size_bytes: int
    created_by: str | None
    created_at: Timestamp


class PinList(Schema):
    items: list[PinOut]
