"""The OpenAPI contract of a pipeline's history: its versions and the differences between them."""

from __future__ import annotations

from typing import Any, Literal

from ninja import Field, Schema

from editor.api.schemas.contract import Timestamp


class RevisionOut(Schema):
    revision: int = Field(description="The pipeline's save counter when this version was kept.")
    kind: Literal["created", "saved", "restored"]
    author: str | None = Field(description="Who saved it (None: unknown, or a deleted user).")
    created_at: Timestamp
    saved_at: Timestamp = Field(description="The last save this version took in.")
    summary: str = Field(description="What changed since the version before, in words.")


class RevisionPage(Schema):
    items: list[RevisionOut] = Field(description="The newest first; the first is the pipeline now.")
    count: int
    current: int = Field(description="The pipeline's revision now, for a restore's `revision`.")


class RevisionDocument(RevisionOut):
    document: dict[str, Any] = Field(description="The whole pipeline document of this version.")


class Change(Schema):
    field: str = Field(description="`label`, `params.condition`, `config.retries` …")
    from_: Any = Field(alias="from")
    to: Any


class ChangedItem(Schema):
    id: str
    changes: list[Change]


class ItemsDiff(Schema):
    added: list[str]
    removed: list[str]
    changed: list[ChangedItem]
    moved: list[str] = Field(description="Only moved or resized: not a change of content.")


class EdgeOut(Schema):
    source: str
    source_port: str
    target: str
    target_port: str


class EdgesDiff(Schema):
    added: list[EdgeOut]
    removed: list[EdgeOut]


class Differences(Schema):
    summary: str
    pipeline: list[Change] = Field(description="Name, description and settings that changed.")
    nodes: ItemsDiff
    edges: EdgesDiff
    notes: ItemsDiff
    groups: ItemsDiff


class DocumentDiff(Differences):
    from_: int = Field(alias="from")
    to: int


class UnsavedDiff(Differences):
    from_: int = Field(
        alias="from", description="The saved revision the document is compared with."
    )


class RestoreIn(Schema):
    revision: int = Field(description="The pipeline's revision you loaded (409 when stale).")
