"""What the file operators share: input paths, the dtype convention for Arrow data, batched
reads with progress and cancellation, and the all-or-nothing write of an output file.

An input's path names one file, a folder or a pattern (runtime/io/file_patterns.py). Its files
are read one after the other, in sorted path order, into one table: columns are matched by
name and take the first file's order, and a file whose columns or types differ from the
first file's is an error at `path` naming both files. `file_name_column` adds each row's
file, as the document names it. The schema view reads the first file only, and a preview
stops reading files once it has its rows: a row limit, or, below a filter, a probe that runs
each batch read through the nodes below (`NodeContext.head`, runtime/execution/heads.py).

Messages name files by the path the user gave (relative to the data root), never by where
they are on the server.

Sources hold more kinds of values than the six public types. `conform_table` maps each to one
of them before `to_pandas`: nested records become one column per field (`address.city`),
lists and maps become their compact JSON text (`["a","b"]`, `{"k":1}`), decimals of up to 38
digits stay `decimal` (wider ones and narrow floats become `float`), and anything else without
a public type (times of day, durations, bytes) becomes text: bytes the UTF-8 they hold, or
`0x` and their hexadecimal digits where they hold none.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, Field

from runtime import relational
from runtime.document.fields import DataPath
from runtime.errors import NotLowerable, OperatorError, ParamsError
from runtime.io.file_patterns import InputFile
from runtime.io.incremental import (
    after_watermark,
    incremental_of,
    new_files,
    start_value,
    watermark_position,
)
from runtime.io.schema_reads import KeptAs, read_once
from runtime.lazy import pa, pd
from runtime.operators.atomic import WriteMode, os_error_reason, refuse_folder, write_atomically
from runtime.operators.column_names import read_names
from runtime.operators.context import NodeContext
from runtime.operators.contract import Operator, OperatorParams, Port
from runtime.operators.file_checks import named_files
from runtime.operators.file_identity import files_identity
from runtime.tables.casting import cast_series
from runtime.tables.frames import is_exact_decimal, public_type, to_pandas
from runtime.tables.schema import Column, Schema, schema_of
from runtime.tables.spilled import SpilledRows

SCHEMA_SAMPLE_ROWS = 1000
"""Rows read to guess a text or spreadsheet file's column types for the schema view."""
SCHEMA_JSON = KeptAs(Schema.to_json, Schema.from_json)
"""How a file's schema is kept on disk for the next command (runtime/io/schema_reads.py)."""


FileNameColumn = Annotated[
    Annotated[str, Field(min_length=1)] | None,
    Field(
        title="File name column",
        description="Add a column of this name holding each row's file, as the path names "
        "it (useful when the path is a folder or a pattern); none when empty.",
    ),
]


def readable_files(ctx: NodeContext) -> list[InputFile]:
    """The files the node's `path` names (one, a folder's or a pattern's), each readable;
    else an `OperatorError`."""
    field = type(ctx.params).model_fields["path"]
    files = named_files(field, ctx.params.path, ctx.files)
    for file in files:
        try:
            file.location.open("rb").close()
        except OSError as error:
            raise OperatorError(f"cannot read '{file.name}': {os_error_reason(error)}") from error
    return files


def read_files(
    ctx: NodeContext,
    files: list[InputFile],
    read_file: Callable[[InputFile, int | None], pa.Table],
    row_limit: int | None,
) -> pa.Table:
    """The rows of `files`, read in turn by `read_file` until there are `row_limit`, as one
    table in the first file's columns (see the module's docstring)."""
    tables, rows = [], 0
    for file in files:
        ctx.check_cancelled()  # between files too: a small file is read in one call
        with ctx.counting_after(rows):  # progress counts the earlier files' rows too
            table = read_file(file, None if row_limit is None else row_limit - rows)
        tables.append(_with_file_name(ctx, table, file))
        rows += table.num_rows
        if (row_limit is not None and rows >= row_limit) or _enough(ctx):
            break
    return _joined(tables, files)


def _enough(ctx: NodeContext) -> bool:
    """Whether a preview reading only a head (`ctx.head`) has the rows it needs."""
    return ctx.head is not None and ctx.head.enough


def with_file_name_field(ctx: NodeContext, schema: pa.Schema) -> pa.Schema:
    """`schema` with the `file_name_column` field after the file's own, if there is one."""
    name = _file_name_column(ctx, schema.names, "the file")
    return schema if name is None else schema.append(pa.field(name, pa.string(), False))


def _with_file_name(ctx: NodeContext, table: pa.Table, file: InputFile) -> pa.Table:
    name = _file_name_column(ctx, table.column_names, f"'{file.name}'")
    if name is None:
        return table
    values = pa.repeat(pa.scalar(file.name, pa.string()), table.num_rows)
    return table.append_column(pa.field(name, pa.string(), False), values)


def _file_name_column(ctx: NodeContext, names: list[str], source: str) -> str | None:
    name = ctx.params.file_name_column
    if name is not None and name in names:
        raise ParamsError(
            "file_name_column", f"{source} already has a column '{name}'; choose another name"
        )
    return name


def _joined(tables: list[pa.Table], files: list[InputFile]) -> pa.Table:
    if len(tables) == 1:
        return tables[0]
    names = tables[0].column_names
    # each column's type in the first file that gives it one: a column of no values (Arrow's
    # null type, as an empty CSV column reads) fits any
    typed: dict[str, tuple[pa.DataType, str]] = {}
    for table, file in zip(tables, files, strict=False):
        _require_columns_of_first(table, names, file.name, files[0].name)
        for name in names:
            kind = table.schema.field(name).type
            if pa.types.is_null(kind):
                continue
            expected, source = typed.setdefault(name, (kind, file.name))
            if _kind(kind) != _kind(expected):
                raise ParamsError(
                    "path",
                    f"column '{name}' is {_kind(kind)} in '{file.name}' but {_kind(expected)} "
                    f"in '{source}'; every file the path names must give a column the same type",
                )
    try:
        return pa.concat_tables(
            [table.select(names) for table in tables], promote_options="permissive"
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
        raise ParamsError("path", f"cannot join the files: {error}") from error


def _require_columns_of_first(table: pa.Table, names: list[str], source: str, first: str):
    missing = [name for name in names if name not in table.column_names]
    extra = [name for name in table.column_names if name not in names]
    if missing or extra:
        lacks = f"it lacks {_names_quoted(missing)}" if missing else ""
        has = f"it has {_names_quoted(extra)} too" if extra else ""
        raise ParamsError(
            "path",
            f"'{source}' does not have the columns of the first file, '{first}': "
            f"{' and '.join(part for part in (lacks, has) if part)}; every file the path "
            "names must have the same columns",
        )


def _kind(kind: pa.DataType) -> str:
    """A column type as messages name it: its public type, with the time zone if any."""
    zone = getattr(kind, "tz", None)
    named = public_type(kind) or str(kind)
    return f"{named} ({zone})" if zone else named


def _names_quoted(names: list[str]) -> str:
    return ", ".join(f"'{name}'" for name in names)


def _names_a_file(path: str) -> str:
    if path.replace("\\", "/").rsplit("/", 1)[-1] in ("", ".", ".."):
        raise ValueError(
            f"'{path}' names a folder, not a file; end it with a file name, "
            "such as 'out/result.csv'"
        )
    return path


OutputPath = Annotated[DataPath, AfterValidator(_names_a_file)]
"""The path of a file to write: `.`, a path ending in `/` and the like are refused."""


def sampled_schema(sample: pd.DataFrame, sample_rows: int, whole: bool = True) -> Schema:
    """The schema seen in the first `sample_rows` rows of the only file (`whole`) or of the
    first; beyond them any column may be null."""
    schema = schema_of(sample)
    if whole and len(sample) < sample_rows:  # the sample is the whole file
        return schema
    return nullable(schema)


def nullable(schema: Schema) -> Schema:
    """`schema` with every column allowed to hold nulls, which a sample cannot rule out."""
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
    if is_exact_decimal(kind):
        return column.cast(pa.decimal128(kind.precision, kind.scale))
    if pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        return column.cast(pa.float64())
    if pa.types.is_date64(kind):
        return column.cast(pa.date32())
    if pa.types.is_timestamp(kind) and kind.tz is not None and kind.unit in ("s", "ms"):
        return column.cast(pa.timestamp("us", kind.tz))  # as DuckDB keeps zoned datetimes
    if any(getattr(pa.types, check)(kind) for check in _BYTES):
        return _bytes_text(column)
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


_BYTES = ("is_binary", "is_large_binary", "is_binary_view", "is_fixed_size_binary")
"""The `pyarrow.types` checks of bytes columns (by name: pyarrow loads when a file is read)."""


def _bytes_text(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """Bytes as the UTF-8 text they hold, or where a value holds none, `0x` and its hexadecimal
    digits (as previews show bytes), value by value only when the column is not all text."""
    try:
        return column.cast(pa.string())
    except pa.ArrowInvalid:
        return pa.chunked_array(
            [[None if value is None else _text_of(value) for value in column.to_pylist()]],
            pa.string(),
        )


def _text_of(value: bytes) -> str:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return "0x" + value.hex()


def _json_text(column: pa.ChunkedArray) -> pa.Array:
    """Lists and maps as JSON text: there is no vectorised encoder, so this one goes by value."""
    values = column.to_pylist(maps_as_pydicts="lossy")
    return pa.array([None if value is None else json_text(value) for value in values], pa.string())


_LOWER_HEX_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\u00([01][0-9a-f])")
"""A control character's escape (`\u001f`) that is not an escaped backslash's `u`."""


def json_text(value) -> str:
    """`value` as compact JSON text, as DuckDB's `to_json` writes it: no spaces, maps as
    objects, text as it is but for the characters JSON escapes (control characters' hex digits
    in capitals), so that a Parquet list reads alike on both backends."""
    text = json.dumps(value, default=str, ensure_ascii=False, separators=(",", ":"))
    return _LOWER_HEX_ESCAPE.sub(lambda found: f"{found[1]}\\u00{found[2].upper()}", text)


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


def pruned_table(table: pa.Table, wanted: set[str] | None) -> pa.Table:
    """`table` less the top-level columns nothing downstream reads (see `read_names`)."""
    kept = read_names(table.column_names, wanted)
    return table if len(kept) == table.num_columns else table.select(kept)


def read_batches(
    ctx: NodeContext, batches: Iterable[pa.RecordBatch], schema: pa.Schema, row_limit: int | None
) -> pa.Table:
    """Gather batches until `row_limit` rows, or until a preview's head has enough
    (`ctx.head`), reporting progress and stopping when asked."""
    collected, rows = [], 0
    for batch in batches:
        ctx.check_cancelled()
        collected.append(batch)
        rows += batch.num_rows
        ctx.progress(rows)
        if ctx.head is not None:
            ctx.head.take(batch)
        if (row_limit is not None and rows >= row_limit) or _enough(ctx):
            break
    table = pa.Table.from_batches(collected, schema=schema)
    return table if row_limit is None else table.slice(0, row_limit)


class FileInput(Operator):
    """Base of the file readers: `read_file` reads one file; the node reads each file its
    `path` names, and its schema comes from a sample of the first."""

    summary = "{path}"
    kind = "input"
    inputs = ()
    outputs = (Port("out"),)

    def output_schema(self, ctx, inputs):
        """The schema of the first file, read once while it is unchanged (runtime/io/
        schema_reads.py): a process plans the same inputs again and again."""
        files = readable_files(ctx)
        columns = None if ctx.columns is None else frozenset(ctx.columns)
        # a probed head may read fewer rows than the sample: its schema is not the file's
        key = (self.name, ctx.params.model_dump_json(), columns, ctx.head is None, len(files) == 1)
        read = lambda: self.file_schema(ctx, files)  # noqa: E731
        return {"out": read_once(files[0].location, key, read, SCHEMA_JSON)}

    def file_schema(self, ctx: NodeContext, files: list[InputFile]) -> Schema:
        """The node's output schema, from a sample of the first of `files`."""
        sample = read_files(ctx, files[:1], self._reader(ctx), SCHEMA_SAMPLE_ROWS)
        whole = len(files) == 1  # more files may hold nulls where the first holds none
        return sampled_schema(self.frame(ctx, sample), SCHEMA_SAMPLE_ROWS, whole)

    def run(self, ctx, inputs):
        incremental = incremental_of(ctx.params)
        if incremental is None:
            files = readable_files(ctx)
            spilled = self._spilled(ctx, files)
            if spilled is not None:
                return {"out": spilled}
            table = read_files(ctx, files, self._reader(ctx), ctx.row_limit)
            return {"out": self.frame(ctx, table)}
        if incremental.mode == "new_files":
            return {"out": self._new_files(ctx)}
        column = incremental.column
        if ctx.columns is not None:
            ctx.columns = ctx.columns | {column}  # pruning must keep what the watermark reads
        table = read_files(ctx, readable_files(ctx), self._reader(ctx), ctx.row_limit)
        frame = after_watermark(self.frame(ctx, table), column, start_value(ctx.position, column))
        ctx.metrics["position"] = watermark_position(frame, column, ctx.position)
        ctx.logger.info(f"read {len(frame)} rows with {column} above the stored position")
        return {"out": frame}

    def _new_files(self, ctx: NodeContext) -> pd.DataFrame:
        """The rows of the files not read before (none: no rows, in the first file's columns)."""
        files = readable_files(ctx)
        unread, ctx.metrics["position"] = new_files(files, ctx.position)
        ctx.logger.info(f"{len(unread)} of {len(files)} files are new")
        if unread:
            return self.frame(ctx, read_files(ctx, unread, self._reader(ctx), ctx.row_limit))
        empty = read_files(ctx, files[:1], self._reader(ctx), 0).slice(0, 0)
        return self.frame(ctx, empty)

    def cache_identity(self, params, files, connections):
        return files_identity(params, files)

    def _spilled(self, ctx: NodeContext, files: list[InputFile]) -> SpilledRows | None:
        """The rows written batch by batch to `ctx.spill_path`, when the node has one (its
        operator `spills`), reads one file whole and streams that file (`spill_file`); else
        None."""
        whole = ctx.row_limit is None and ctx.head is None
        if ctx.spill_path is None or len(files) != 1 or not whole:
            return None
        return self.spill_file(ctx, files[0])

    def spill_file(self, ctx: NodeContext, file: InputFile) -> SpilledRows | None:
        """The file's rows written to `ctx.spill_path` batch by batch, typed as `read_file`
        and `frame` type them; None (nothing written) where it reads only whole."""
        return None

    def read_file(self, ctx: NodeContext, file: InputFile, row_limit: int | None) -> pa.Table:
        """The file's rows (at most `row_limit`) as Arrow, each column of a public type."""
        raise NotImplementedError

    def frame(self, ctx: NodeContext, table: pa.Table) -> pd.DataFrame:
        """The rows of the files as a frame following the dtype convention."""
        return to_pandas(table)

    def _reader(self, ctx: NodeContext):
        return lambda file, row_limit: self.read_file(ctx, file, row_limit)


class FileOutputParams(OperatorParams):
    path: OutputPath = Field(title="Path", description="File to write, relative to the data root.")
    mode: WriteMode = Field(
        "overwrite",
        title="When the file exists",
        description="Replace it, add the rows to it, or stop with an error.",
    )


class FileOutput(Operator):
    """Base of the file writers: `write` fills a temporary file that replaces the target."""

    summary = "{path}"
    kind = "output"
    inputs = (Port("in"),)
    outputs = ()

    def output_schema(self, ctx, inputs):
        refuse_folder(ctx.resolve_path(ctx.params.path, write=True), ctx.params.path)
        return {}

    def run(self, ctx, inputs):
        params: FileOutputParams = ctx.params
        rows: pd.DataFrame | SpilledRows = inputs["in"]

        def write(temporary: Path, appending: bool) -> None:
            if isinstance(rows, SpilledRows):
                self.write_spilled(ctx, rows, temporary, appending)
            else:
                self.write(ctx, rows, temporary, appending)

        size = write_atomically(ctx, params.path, params.mode, write)
        ctx.metrics.update(path=params.path, rows_written=len(rows), bytes_out=size)
        ctx.logger.info(f"wrote {len(rows)} rows to {params.path}")
        return {}

    def write(
        self, ctx: NodeContext, frame: pd.DataFrame, temporary: Path, appending: bool
    ) -> None:
        """Write `frame` to `temporary` (a copy of the existing file when `appending`)."""
        raise NotImplementedError

    def write_spilled(
        self, ctx: NodeContext, rows: SpilledRows, temporary: Path, appending: bool
    ) -> None:
        """Write rows spilled to a file (runtime/execution/streams.py) as `write` writes their
        frame: a writer that `reads_batches` appends them batch by batch, the others build it."""
        self.write(ctx, rows.frame(), temporary, appending)

    def written(
        self, params: FileOutputParams, inputs, schemas, file_format: str, options: tuple
    ) -> dict[str, relational.Relation]:
        """For `lower`: the input's rows written to the file as `write` writes them."""
        if not schemas["in"].columns:
            raise NotLowerable("rows of no columns are written on pandas")
        write = relational.Write(inputs["in"], file_format, params.path, params.mode, options)
        return {relational.SINK: write}
