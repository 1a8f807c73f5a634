"""Incremental inputs: read only what the last successful run did not.

An input with `incremental` set starts from a *position* (`ctx.position`, JSON data the caller
kept from the last run that succeeded as a whole; None: read everything) and reports the
position it reached in `ctx.metrics["position"]`. Two modes:

- `watermark` on a column: only rows whose value is strictly greater than the stored one
  (`{"column": "id", "type": "integer", "value": 1042}`); the new position is the greatest
  value read, or the old one when no row is new. Use a unique, increasing column: rows that
  arrive later with a value at or below the stored one are never read. `sql_input` binds the
  value in the query (`runtime.operators.sql.reading`), file inputs filter after reading.
- `new_files` (file inputs): only files not read before, a file being its path as the
  document names it, its size and its modification time (`{"files": {name: [size,
  mtime_ns]}}`): a file rewritten in place is read again, whole. The position lists the
  files the path names now, so it stays as small as the folder.

Belongs here: the params, the positions and the filtering. Does not belong here: keeping
positions between runs (the CLI's `runtime.io.position_files`, the editor's model) or reading.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from runtime.errors import OperatorError, ParamsError
from runtime.io.file_patterns import InputFile
from runtime.lazy import pd
from runtime.tables.schema import TypeName, type_name_of

WATERMARK_TYPES: frozenset[TypeName] = frozenset({"integer", "float", "string", "date", "datetime"})
"""Column types a watermark can compare (a boolean cannot grow)."""


class Incremental(BaseModel):
    """How an input reads only what is new since the last successful run."""

    model_config = ConfigDict(extra="forbid", title="Incremental")

    mode: Literal["watermark", "new_files"] = Field(
        title="Read",
        description="watermark: rows whose column value is greater than the last run's "
        "greatest; new_files: only files not read before (a folder or a pattern).",
    )
    column: Annotated[str, Field(min_length=1)] | None = Field(
        None,
        title="Watermark column",
        description="A unique, increasing column (an id, a time of insertion).",
    )

    @model_validator(mode="after")
    def _column_for_a_watermark(self) -> Incremental:
        if self.mode == "watermark" and self.column is None:
            raise ValueError("a watermark needs its column; name a unique, increasing column")
        if self.mode == "new_files" and self.column is not None:
            raise ValueError("new_files reads whole files: leave the column empty")
        return self


IncrementalField = Annotated[
    Incremental | None,
    Field(
        title="Incremental",
        description="Read only what is new since the last successful run (none: everything).",
    ),
]


def incremental_of(params: BaseModel) -> Incremental | None:
    """The incremental mode of a node's params (None for every other node)."""
    found = getattr(params, "incremental", None)
    return found if isinstance(found, Incremental) else None


def is_incremental(params: BaseModel) -> bool:
    return incremental_of(params) is not None


# -- watermarks --------------------------------------------------------------------------


def start_value(position: Any, column: str) -> Any:
    """The stored watermark as a value to compare with (None: no position, or one of another
    column, which then starts over)."""
    if not isinstance(position, dict) or position.get("column") != column:
        return None
    kind, value = position.get("type"), position.get("value")
    if value is None:
        return None
    if kind == "datetime":
        return datetime.fromisoformat(value)
    if kind == "date":
        return date.fromisoformat(value)
    if kind in ("integer", "float", "string"):
        return value
    raise OperatorError(f"the stored position of column '{column}' is not readable; reset it")


def after_watermark(frame: pd.DataFrame, column: str, start: Any) -> pd.DataFrame:
    """The rows of `frame` whose `column` is strictly greater than `start` (all when None)."""
    values = _watermark_column(frame, column)
    if start is None:
        return frame
    try:
        kept = values > _comparable(start, values)
    except TypeError as error:
        raise OperatorError(
            f"column '{column}' cannot be compared with the stored position ({error}); reset it"
        ) from error
    return frame[kept.fillna(False).astype(bool)]


def watermark_position(frame: pd.DataFrame, column: str, previous: Any) -> Any:
    """The position after reading `frame`: its greatest `column` value, or `previous` (the
    stored one) when no row was read."""
    values = _watermark_column(frame, column).dropna()
    if values.empty:
        return previous if start_value(previous, column) is not None else None
    kind = type_name_of(values.dtype)
    greatest = values.max()
    if kind == "datetime":
        value = pd.Timestamp(greatest).isoformat()
    elif kind == "date":
        value = greatest.isoformat()
    else:
        value = greatest.item() if hasattr(greatest, "item") else greatest
    return {"column": column, "type": kind, "value": value}


def _watermark_column(frame: pd.DataFrame, column: str) -> pd.Series:
    if column not in frame.columns:
        raise ParamsError("incremental", f"there is no column '{column}' to keep a watermark on")
    values = frame[column]
    if type_name_of(values.dtype) not in WATERMARK_TYPES:
        raise ParamsError(
            "incremental", f"column '{column}' is {type_name_of(values.dtype)}: a watermark "
            "needs numbers, texts, dates or times",
        )  # fmt: skip
    return values


def _comparable(start: Any, values: pd.Series) -> Any:
    if isinstance(start, datetime):
        stamp = pd.Timestamp(start)
        zone = getattr(values.dtype, "tz", None)
        if zone is not None and stamp.tzinfo is None:
            return stamp.tz_localize(zone)
        return stamp
    return start


# -- new files -----------------------------------------------------------------------------


def file_identities(files: list[InputFile]) -> dict[str, list[int]]:
    """Each file's identity: its size and modification time (ns), by its name."""
    found = {}
    for file in files:
        stat = file.location.stat()
        found[file.name] = [stat.st_size, stat.st_mtime_ns]
    return found


def new_files(files: list[InputFile], position: Any) -> tuple[list[InputFile], dict]:
    """Of `files`, those the position has not seen as they are now, and the position after
    reading them (every file the path names now)."""
    seen = position.get("files") if isinstance(position, dict) else None
    seen = seen if isinstance(seen, dict) else {}  # a position of another shape: read all
    now = file_identities(files)
    unread = [file for file in files if seen.get(file.name) != now[file.name]]
    return unread, {"files": now}


def reached_positions(metrics_by_node: dict[str, dict]) -> dict[str, Any]:
    """The positions a run's incremental inputs reached, from their nodes' metrics; the caller
    keeps them only when the whole run succeeded."""
    return {
        node_id: metrics["position"]
        for node_id, metrics in metrics_by_node.items()
        if isinstance(metrics, dict) and "position" in metrics
    }
