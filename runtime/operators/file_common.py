"""What the file operators share: input paths, the dtype convention for Arrow data, batched
reads with progress and cancellation, and the all-or-nothing write of an output file.

Messages name files by the path the user gave (relative to the data root), never by where
they are on the server.

Sources hold more kinds of values than the six public types. `conform_table` maps each to one
of them before `to_pandas`: nested records become one column per field (`address.city`),
lists and maps become their JSON text, decimals and narrow floats become `float`, and
anything else without a public type (times of day, durations, bytes) becomes text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import pyarrow as pa
from pydantic import AfterValidator, Field

from runtime.casting import cast_series
from runtime.context import NodeContext
from runtime.contract import Operator, OperatorParams, Port
from runtime.errors import NotLowerable, OperatorError
from runtime.fields import DataPath
from runtime.frames import public_type
from runtime.lazy import pd
from runtime.operators.atomic import WriteMode, os_error_reason, refuse_folder, write_atomically
from runtime.plan import relational
from runtime.schema import Column, Schema, schema_of

SCHEMA_SAMPLE_ROWS = 1000
"""Rows read to guess a text or spreadsheet file's column types for the schema view."""


def existing_file(ctx: NodeContext, relative: str) -> Path:
    """The readable input file at `relative` under the data root; else an `OperatorError`."""
    path = ctx.resolve_path(relative)
    if path.is_dir():
        raise OperatorError(f"input file '{relative}' is a folder, not a file")
    if not path.is_file():
        raise OperatorError(f"input file '{relative}' not found under the data root")
    try:
        path.open("rb").close()
    except OSError as error:
        raise OperatorError(f"cannot read '{relative}': {os_error_reason(error)}") from error
    return path


def literal_path(path: str) -> str:
    """`path` for a relational scan, which must read that one file as `run` does; a name with
    wildcard characters would be a pattern to a columnar reader."""
    if any(character in path for character in "*?[]{}"):
        raise NotLowerable(f"'{path}' has wildcard characters and is read on pandas")
    return path


def _names_a_file(path: str) -> str:
    if path.replace("\\", "/").rsplit("/", 1)[-1] in ("", ".", ".."):
        raise ValueError(
            f"'{path}' names a folder, not a file; end it with a file name, "
            "such as 'out/result.csv'"
        )
    return path


OutputPath = Annotated[DataPath, AfterValidator(_names_a_file)]
"""The path of a file to write: `.`, a path ending in `/` and the like are refused."""


def sampled_schema(sample: pd.DataFrame, sample_rows: int) -> Schema:
    """The schema seen in the first `sample_rows` rows; beyond them any column may be null."""
    schema = schema_of(sample)
    if len(sample) < sample_rows:  # the sample is the whole file
        return schema
    return Schema(tuple(replace(column, nullable=True) for column in schema.columns))


def arrow_schema(schema: pa.Schema) -> Schema:
    """The public schema of data with this Arrow schema, read without any rows."""
    conformed = conform_table(empty_table(schema))
    return Schema(
        tuple(
            Column(field.name, public_type(field.type), field.nullable)
            for field in conformed.schema
        )
    )


def conform_table(table: pa.Table) -> pa.Table:
    """`table` with every column in an Arrow type that `to_pandas` maps to a public type."""
    while any(pa.types.is_struct(field.type) for field in table.schema):
        table = table.flatten()
    return pa.Table.from_arrays(
        [_conform_column(column) for column in table.columns], names=table.column_names
    )


def empty_table(schema: pa.Schema) -> pa.Table:
    """A table of no rows; unlike `schema.empty_table()` and `pa.table()`, which look for
    pandas objects first, it does not import pandas."""
    return pa.Table.from_batches([], schema=schema)


def _conform_column(column: pa.ChunkedArray) -> pa.ChunkedArray:
    kind = column.type
    if pa.types.is_dictionary(kind):
        return _conform_column(column.cast(kind.value_type))
    if pa.types.is_nested(kind):
        return _json_text(column)
    if pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        return column.cast(pa.float64())
    if pa.types.is_date64(kind):
        return column.cast(pa.date32())
    if not _has_public_type(kind):
        return column.cast(pa.string())
    return column


def _has_public_type(kind: pa.DataType) -> bool:
    return any(
        check(kind)
        for check in (
            pa.types.is_integer,
            pa.types.is_boolean,
            pa.types.is_string,
            pa.types.is_large_string,
            pa.types.is_date32,
            pa.types.is_timestamp,
        )
    )


def _json_text(column: pa.ChunkedArray) -> pa.Array:
    """Lists and maps as JSON text: there is no vectorised encoder, so this one goes by value."""
    values = column.to_pylist()
    return pa.array(
        [None if value is None else json.dumps(value, default=str) for value in values],
        pa.string(),
    )


def arrow_table(frame: pd.DataFrame) -> pa.Table:
    """`frame` as an Arrow table (Python objects too); a column of mixed kinds becomes text."""
    return pa.table(
        [_arrow_column(frame.iloc[:, index]) for index in range(frame.shape[1])],
        names=[str(name) for name in frame.columns],
    )


def _arrow_column(values: pd.Series) -> pa.Array:
    try:
        return pa.array(values, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        return pa.array(cast_series(values, "string"), pa.string(), from_pandas=True)


def read_batches(
    ctx: NodeContext, batches: Iterable[pa.RecordBatch], schema: pa.Schema, row_limit: int | None
) -> pa.Table:
    """Gather batches until `row_limit` rows, reporting progress and stopping when asked."""
    collected, rows = [], 0
    for batch in batches:
        ctx.check_cancelled()
        collected.append(batch)
        rows += batch.num_rows
        ctx.progress(rows)
        if row_limit is not None and rows >= row_limit:
            break
    table = pa.Table.from_batches(collected, schema=schema)
    return table if row_limit is None else table.slice(0, row_limit)


class FileInput(Operator):
    """Base of the file readers: `read` the file; the schema comes from a sample of it."""

    kind = "input"
    inputs = ()
    outputs = (Port("out"),)

    def output_schema(self, ctx, inputs):
        path = existing_file(ctx, ctx.params.path)
        return {"out": sampled_schema(self.read(ctx, path, SCHEMA_SAMPLE_ROWS), SCHEMA_SAMPLE_ROWS)}

    def run(self, ctx, inputs):
        return {"out": self.read(ctx, existing_file(ctx, ctx.params.path), ctx.row_limit)}

    def read(self, ctx: NodeContext, path: Path, row_limit: int | None) -> pd.DataFrame:
        """The file's rows (at most `row_limit`) following the dtype convention."""
        raise NotImplementedError


class FileOutputParams(OperatorParams):
    path: OutputPath = Field(title="Path", description="File to write, relative to the data root.")
    mode: WriteMode = Field(
        "overwrite",
        title="When the file exists",
        description="Replace it, add the rows to it, or stop with an error.",
    )


class FileOutput(Operator):
    """Base of the file writers: `write` fills a temporary file that replaces the target."""

    kind = "output"
    inputs = (Port("in"),)
    outputs = ()

    def output_schema(self, ctx, inputs):
        refuse_folder(ctx.resolve_path(ctx.params.path, write=True), ctx.params.path)
        return {}

    def run(self, ctx, inputs):
        params: FileOutputParams = ctx.params
        frame: pd.DataFrame = inputs["in"]

        def write(temporary: Path, appending: bool) -> None:
            self.write(ctx, frame, temporary, appending)

        size = write_atomically(ctx, params.path, params.mode, write)
        ctx.metrics.update(path=params.path, rows_written=len(frame), bytes_out=size)
        ctx.logger.info(f"wrote {len(frame)} rows to {params.path}")
        return {}

    def write(
        self, ctx: NodeContext, frame: pd.DataFrame, temporary: Path, appending: bool
    ) -> None:
        """Write `frame` to `temporary` (a copy of the existing file when `appending`)."""
        raise NotImplementedError

    def written(
        self, params: FileOutputParams, inputs, schemas, file_format: str, options: tuple
    ) -> dict[str, relational.Relation]:
        """For `lower`: the input's rows written to the file as `write` writes them."""
        if not schemas["in"].columns:
            raise NotLowerable("rows of no columns are written on pandas")
        write = relational.Write(inputs["in"], file_format, params.path, params.mode, options)
        return {relational.SINK: write}
