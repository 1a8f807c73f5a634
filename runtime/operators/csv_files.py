"""`csv_input` and `csv_output`: CSV files under the data root.

`csv_input` reads one file, or each file of a folder or a pattern (runtime/io/file_patterns.py;
a folder's files are those ending in `CSV_ENDINGS`), each with its own header and types.
"""

from __future__ import annotations

import csv
import re
from itertools import islice
from pathlib import Path
from typing import Annotated

from pydantic import Field

from runtime import relational
from runtime.document.fields import DataPath, FileEndings
from runtime.errors import NotLowerable, OperatorError
from runtime.io.csv_types import CsvBlock, plain_csv_types
from runtime.io.file_patterns import InputFile
from runtime.io.incremental import IncrementalField
from runtime.io.schema_reads import read_once
from runtime.lazy import pa, pa_csv, pd
from runtime.operators.context import NodeContext
from runtime.operators.contract import OperatorParams
from runtime.operators.csv_batches import holds_carriage_return, write_csv_batches
from runtime.operators.file_common import (
    FileInput,
    FileNameColumn,
    FileOutput,
    FileOutputParams,
    OutputPath,
    nullable,
    read_batches,
    read_files,
)
from runtime.tables.casting import cast_series
from runtime.tables.frames import table_schema, to_pandas
from runtime.tables.schema import Column, Schema, TypeName, is_decimal_dtype, schema_of

SCHEMA_SAMPLE_ROWS = 1000
"""Rows read to guess a CSV file's column types for the schema view."""
STREAM_ABOVE_BYTES = 256 * 2**20
"""Larger files are read block by block, with progress events and cancellation checks."""
BLOCK_BYTES = 2**20
"""Arrow's default, faster than larger blocks on a small machine (docs/performance.md)."""
CSV_ENDINGS = (".csv", ".tsv", ".txt")
"""The files of a folder that `csv_input` reads."""


class CsvInputParams(OperatorParams):
    path: Annotated[DataPath, FileEndings(CSV_ENDINGS)] = Field(
        title="Path",
        description="CSV file, folder of them (.csv, .tsv, .txt) or pattern such as "
        "'sales/2026-*.csv', relative to the data root.",
    )
    delimiter: str = Field(
        ",", title="Delimiter", description="Character between fields.", min_length=1, max_length=1
    )
    encoding: str = Field("utf-8", title="Encoding", description="Text encoding of the file.")
    header: bool = Field(True, title="Header row", description="The first row names the columns.")
    columns: list[str] | None = Field(
        None, title="Columns", description="Read only these columns (all when empty)."
    )
    dtypes: dict[str, TypeName] = Field(
        {},
        title="Column types",
        description="Types to convert columns to; others are guessed from the data.",
    )
    skip_rows: Annotated[int, Field(ge=0)] = Field(
        0, title="Skip rows", description="Lines to skip before the header (or the data)."
    )
    file_name_column: FileNameColumn = None
    incremental: IncrementalField = None


class CsvInput(FileInput):
    name = "csv_input"
    title = "CSV file"
    description = "Read a CSV file, or a folder or pattern of them, from the data root."
    Params = CsvInputParams

    def file_schema(self, ctx, files):
        schema = _plain_schema(ctx, files[0])
        if schema is None:
            sample = read_files(ctx, files[:1], self._reader(ctx), SCHEMA_SAMPLE_ROWS)
            schema = None if ctx.params.dtypes else table_schema(sample)
            schema = schema or schema_of(self.frame(ctx, sample))
        return schema if len(files) == 1 else nullable(schema)

    def lower(self, params, inputs, schemas):
        if params.encoding.lower().replace("_", "-") not in ("utf-8", "utf8"):
            raise NotLowerable(f"files in {params.encoding} are read on pandas")
        if not params.header and params.columns:
            raise NotLowerable("columns of a file without a header row are chosen on pandas")
        scan = relational.Scan(
            "csv",
            params.path,
            (
                ("delimiter", params.delimiter),
                ("header", params.header),
                ("skip_rows", params.skip_rows),
                ("file_name_column", params.file_name_column),
            ),
            tuple(params.columns) if params.columns else None,
        )
        if not params.dtypes:
            return {"out": scan}
        return {"out": relational.Cast(scan, tuple(params.dtypes.items()))}

    def read_file(self, ctx, file, row_limit):
        params: CsvInputParams = ctx.params
        included = columns_to_read(ctx, params, file.location)
        # a sample's rows are in the first block, and a probed head stops after a few: the
        # reader's threads would parse more ahead
        threads = ctx.head is None and (row_limit is None or row_limit > SCHEMA_SAMPLE_ROWS)
        options = arrow_options(params, included, threads=threads)
        whole = row_limit is None and ctx.head is None
        try:
            if whole and file.location.stat().st_size <= STREAM_ABOVE_BYTES:
                table = pa_csv.read_csv(file.location, *options)
                ctx.progress(table.num_rows)
            else:
                table = _read_in_blocks(ctx, file, options, row_limit)
        except (pa.ArrowInvalid, pa.ArrowKeyError, UnicodeDecodeError, LookupError) as error:
            raise OperatorError(
                f"cannot read '{file.name}' as CSV: {_arrow_message(error)}"
            ) from error
        if not params.header:
            table = table.rename_columns([f"column_{i + 1}" for i in range(table.num_columns)])
        return table

    def frame(self, ctx, table):
        """The rows read, in the engine's dtypes and the declared column types."""
        return apply_dtypes(to_pandas(table), ctx.params.dtypes, ctx.params.path)


_PUBLIC_TYPES = {"int64": "integer", "double": "float", "date32[day]": "date", "string": "string"}
"""The public type of each kind `plain_csv_types` answers (`public_type` of pyarrow's)."""


def _plain_schema(ctx: NodeContext, file: InputFile) -> Schema | None:
    """The schema `file_schema` reads from a sample, read without pyarrow where that is sure:
    every column of the file, undeclared, its nulls among the sample's rows."""
    params: CsvInputParams = ctx.params
    plain_file = not (params.dtypes or params.columns or params.file_name_column)
    if not plain_file or ctx.head is not None or columns_to_read(ctx, params, file.location):
        return None
    block = plain_types(params, file.location)
    if block is None or (block.rows < SCHEMA_SAMPLE_ROWS and not block.whole_file):
        return None  # the sample reaches past the first block
    return Schema(
        tuple(
            Column(
                column.name,
                _PUBLIC_TYPES[column.kind],
                column.first_null is not None and column.first_null < SCHEMA_SAMPLE_ROWS,
            )
            for column in block.columns
        )
    )


def plain_types(params: CsvInputParams, path: Path) -> CsvBlock | None:
    """The types of the file's columns as pyarrow reads them with `arrow_options`, read
    without importing it (runtime/io/csv_types.py); None where pyarrow must be asked."""
    utf8 = params.encoding.lower().replace("_", "-") in ("utf-8", "utf8")
    if not (utf8 and params.header) or params.skip_rows:
        return None
    key = ("plain_csv_types", params.delimiter)  # the node's schema and DuckDB's scan ask both
    return read_once(path, key, lambda: plain_csv_types(path, params.delimiter, BLOCK_BYTES))


def columns_to_read(ctx: NodeContext, params: CsvInputParams, path: Path) -> list[str] | None:
    """The columns asked for, less those nothing downstream reads (column pruning).

    Columns with a declared type are always read, so that a typo there is still reported.
    """
    if ctx.columns is None or not params.header:
        return params.columns
    names = params.columns or _header(path, params)
    kept = [name for name in names if name in ctx.columns or name in params.dtypes]
    return kept if kept and len(kept) < len(names) else params.columns


def _header(path: Path, params: CsvInputParams) -> list[str]:
    """The column names on the header line, read without parsing the rest of the file."""
    try:
        with open(path, encoding=params.encoding, newline="") as file:
            lines = islice(file, params.skip_rows, None)
            return next(csv.reader(lines, delimiter=params.delimiter), [])
    except (UnicodeDecodeError, LookupError, csv.Error):
        return []  # the real read reports what is wrong with the file


def arrow_options(params: CsvInputParams, included: list[str] | None, *, threads: bool = True):
    read = pa_csv.ReadOptions(
        use_threads=threads,
        skip_rows=params.skip_rows,
        autogenerate_column_names=not params.header,
        encoding=params.encoding,
        block_size=BLOCK_BYTES,
    )
    parse = pa_csv.ParseOptions(delimiter=params.delimiter)
    convert = pa_csv.ConvertOptions(include_columns=included or None, strings_can_be_null=True)
    return read, parse, convert


def _read_in_blocks(ctx: NodeContext, file: InputFile, options: tuple, row_limit: int | None):
    """Stream a large file (or the head of one) block by block, with progress and cancel."""
    with pa_csv.open_csv(file.location, *options) as reader:
        return read_batches(ctx, reader, reader.schema, row_limit)


def _arrow_message(error: Exception) -> str:
    message = str(error).strip().splitlines()[0]
    missing = re.match(r"Column '(.*)' in include_columns does not exist", message)
    if missing:
        return f"column '{missing[1]}' in 'columns' does not exist in the file"
    return message


class CsvOutputParams(FileOutputParams):
    path: OutputPath = Field(
        title="Path", description="CSV file to write, relative to the data root."
    )
    delimiter: str = Field(
        ",", title="Delimiter", description="Character between fields.", min_length=1, max_length=1
    )
    header: bool = Field(True, title="Header row", description="Write the column names first.")


class CsvOutput(FileOutput):
    name = "csv_output"
    title = "Write CSV"
    description = "Write rows to a CSV file under the data root, all at once or not at all."
    Params = CsvOutputParams

    def lower(self, params, inputs, schemas):
        delimiter = params.delimiter
        plain = delimiter == "\t" or (delimiter.isascii() and delimiter.isprintable())
        if delimiter == '"' or not plain:
            raise NotLowerable(f"files delimited by {delimiter!r} are written on pandas")
        options = (("delimiter", delimiter), ("header", params.header))
        return self.written(params, inputs, schemas, "csv", options)

    def reads_batches(self, params):
        return True

    def write(self, ctx, frame, temporary, appending):
        ending = "\r\n" if holds_carriage_return(frame) else "\n"
        mode = "a" if appending else "w"
        self._write_frame(ctx.params, frame, temporary, not appending, ending, mode)

    def write_spilled(self, ctx, rows, temporary, appending):
        def write_frame(frame, handle, header, ending):
            self._write_frame(ctx.params, frame, handle, header, ending)

        write_csv_batches(ctx, rows, temporary, appending, write_frame)

    @staticmethod
    def _write_frame(
        params: CsvOutputParams, frame, target, header: bool, ending: str, mode: str = "w"
    ) -> None:
        """Write `frame` to `target`, a path (opened in `mode`) or an open text file."""
        decimal_text(frame).to_csv(
            target,
            mode=mode,
            sep=params.delimiter,
            header=params.header and header,
            index=False,
            lineterminator=ending,
        )


def decimal_text(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with its decimal columns as fixed-point text (`0.0000000001`, as DuckDB writes
    them), rather than the exponent Python's `Decimal` would show for a small value (`1E-10`)."""
    decimals = [name for name, dtype in frame.dtypes.items() if is_decimal_dtype(dtype)]
    if not decimals:
        return frame
    return frame.assign(
        **{
            name: frame[name].map(lambda value: format(value, "f"), na_action="ignore")
            for name in decimals
        }
    )


def apply_dtypes(frame: pd.DataFrame, dtypes: dict[str, TypeName], source: str) -> pd.DataFrame:
    """`frame` with the columns `dtypes` names converted to their types; an OperatorError
    naming `source` when one of them is not in the file."""
    missing = [name for name in dtypes if name not in frame.columns]
    if missing:
        raise OperatorError(
            f"column types name columns that '{source}' does not have: {', '.join(missing)}"
        )
    if not dtypes:
        return frame
    return frame.assign(**{name: cast_series(frame[name], kind) for name, kind in dtypes.items()})
