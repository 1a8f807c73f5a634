"""The answer of `GET /api/runs/compare`: two runs and their nodes side by side."""

from __future__ import annotations

from typing import Any, Literal

from ninja import Schema
from pydantic import Field

from editor.api.schemas.runs import RunSummary


class ComparedRun(RunSummary):
    """One of the two runs, with its pipeline's name (the two may be of two pipelines)."""

    pipeline_name: str


class NodeFigures(Schema):
    """What a node did in one run (all None when the run recorded nothing for it)."""

    status: str | None
    rows_in: int | None
    rows_out: int | None
    duration_s: float | None
    cached: bool = Field(description="Whether the run reused a stored result for it.")
    error: str


class Column(Schema):
    name: str
    type: str


class ColumnChanges(Schema):
    """Columns only `b` has, only `a` has, and those whose type changed (`name, from, to`)."""

    added: list[Column]
    removed: list[Column]
    changed: list[dict[str, str]]


class StoredSide(Schema):
    kept: bool = Field(description="False: the run stored it, and it is gone (data not kept).")
    columns: list[Column] | None


class StoredResult(Schema):
    """A port's stored result in each run (None: that run stored none)."""

    port: str
    a: StoredSide | None
    b: StoredSide | None
    column_changes: ColumnChanges | None = Field(description="When both are kept.")
    note: str = Field(description='"data not kept for run #3" when a stored result is gone.')


class RowChanges(Schema):
    """An output's rows by keys: `compared` (counts and the first 20 of each kind in key
    order), `duplicate_keys` (keys that repeat on a side: no counts) or `not_kept`."""

    status: Literal["compared", "duplicate_keys", "not_kept"]
    message: str | None = None
    keys: list[str] | None = None
    columns: list[str] | None = Field(None, description="The columns compared (both have).")
    added: int | None = None
    removed: int | None = None
    changed: int | None = None
    unchanged: int | None = None
    changed_by_column: dict[str, int] | None = None
    samples: dict[str, list[dict[str, Any]]] | None = Field(
        None,
        description="`added` and `removed`: whole rows; `changed`: "
        "`{key: {column: value}, changes: {column: {a, b}}}`.",
    )
    duplicates: dict[str, dict[str, Any]] | None = Field(
        None, description="By side: `{values, rows, examples}` of the keys that repeat."
    )


class NodeComparison(Schema):
    """A node of either run, matched by id."""

    id: str
    label: str
    operator: str | None
    kind: str | None
    presence: Literal["both", "a", "b"] = Field(description="`a`: removed; `b`: added.")
    changes: list[str] = Field(description='The document fields that changed ("params.x").')
    a: NodeFigures | None
    b: NodeFigures | None
    results: list[StoredResult]
    rows: RowChanges | None = None


class RunComparison(Schema):
    a: ComparedRun
    b: ComparedRun
    keys: list[str]
    node: str | None
    nodes: list[NodeComparison] = Field(description="Upstream first.")
