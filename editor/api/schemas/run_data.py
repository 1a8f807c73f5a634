"""The OpenAPI contract of a run's node results: pages of rows and per-column statistics."""

from __future__ import annotations

from typing import Any, Literal

from ninja import Field, Schema


class DataColumn(Schema):
    name: str
    type: str = Field(description="The engine's type name, or Arrow's for another type.")


class AboutResult(Schema):
    run: int
    node: str
    port: str
    source: Literal["stored", "recomputed"] = Field(
        description="`stored`: read from the run's stored result; `recomputed`: computed now "
        "from the run's document and parameters (its first rows only)."
    )
    cached: bool = Field(description="Whether the run reused the node's result from the cache.")


class DataPage(AboutResult):
    columns: list[DataColumn]
    rows: list[list[Any]]
    total_rows: int | None = Field(description="Rows after the filter (None: not known).")
    offset: int
    limit: int
    recomputed_rows: int | None = Field(
        None, description="A recomputed result: the most rows recomputed."
    )
    recomputed_from: list[str] | None = Field(
        None,
        description="A recomputed result: the nodes whose stored results of the run it started "
        "from (empty: it read the run's inputs again).",
    )
    changed_inputs: list[str] | None = Field(
        None,
        description="A recomputed result: the input files it read again that changed since "
        "the run, so its rows may differ from what the run saw.",
    )
    missing_columns: list[str] | None = Field(
        None,
        description="A stored result: the port's columns the run did not keep, because nothing "
        "after the node reads them.",
    )
    kept_by: dict[str, str] | None = Field(
        None,
        description="A recomputed result: the run options (`{up_to: node}`) of a run that "
        "stores it whole, to page, sort, filter and summarise in that run's results.",
    )


class ColumnStats(Schema):
    name: str
    type: str
    count: int = Field(description="Values that are not null (NaN counts as null).")
    nulls: int
    distinct: int
    distinct_estimated: bool = Field(description="Whether `distinct` is an estimate.")
    min: Any
    max: Any
    histogram: list[dict[str, Any]] = Field(
        description="Numbers: `{low, high, count}` per equal-width bin; otherwise the most "
        "frequent values, `{value, count}`."
    )


class DataStats(AboutResult):
    columns: list[ColumnStats]
