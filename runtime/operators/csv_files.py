"""`csv_input` and `csv_output`: CSV files under the data root."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import pandas as pd
from pydantic import Field

from runtime.casting import cast_series
from runtime.context import NodeContext
from runtime.errors import OperatorError
from runtime.fields import DataPath
from runtime.operator import Operator, OperatorParams, Port
from runtime.operators.atomic import WriteMode, write_atomically
from runtime.schema import TypeName, schema_of

SCHEMA_SAMPLE_ROWS = 1000
"""Rows read to guess a CSV file's column types for the schema view."""


class CsvInputParams(OperatorParams):
    path: DataPath = Field(title="Path", description="CSV file, relative to the data root.")
    delimiter: str = Field(
        ",", title="Delimiter", description="Character between fields.", min_length=1, max_length=1
    )
    encoding: str = Field("utf-8", title="Encoding", description="Text encoding of the file.")
    header: bool = Field(True, title="Header row", description="The first row names the columns.")
    columns: list[str] | None = Field(
        None, title="Columns", description="Read only these columns (all when empty)."
    )
    dtypes: dict[str, TypeName] = Field(
        default_factory=dict,
        title="Column types",
        description="Types to convert columns to; others are guessed from the data.",
    )
    skip_rows: Annotated[int, Field(ge=0)] = Field(
        0, title="Skip rows", description="Lines to skip before the header (or the data)."
    )


class CsvInput(Operator):
    name = "csv_input"
    kind = "input"
    title = "CSV file"
    description = "Read a CSV file from the data root."
    inputs = ()
    outputs = (Port("out"),)
    Params = CsvInputParams

    def output_schema(self, ctx, inputs):
        sample = self._read(ctx, nrows=SCHEMA_SAMPLE_ROWS)
        return {"out": schema_of(sample)}

    def run(self, ctx, inputs):
        frame = self._read(ctx, nrows=ctx.row_limit)
        ctx.progress(len(frame))
        return {"out": frame}

    def _read(self, ctx: NodeContext, nrows: int | None) -> pd.DataFrame:
        params: CsvInputParams = ctx.params
        path = _existing_file(ctx, params.path)
        options = dict(
            sep=params.delimiter,
            encoding=params.encoding,
            header=0 if params.header else None,
            usecols=params.columns or None,
            skiprows=params.skip_rows or None,
        )
        try:
            if nrows is None:
                frame = pd.read_csv(path, engine="pyarrow", **options)
            else:
                frame = pd.read_csv(path, nrows=nrows, **options)
        except ValueError as error:
            raise OperatorError(f"cannot read '{params.path}': {error}") from error
        except (UnicodeDecodeError, pd.errors.ParserError) as error:
            raise OperatorError(f"cannot read '{params.path}' as CSV: {error}") from error
        if not params.header:
            frame.columns = [f"column_{index + 1}" for index in range(len(frame.columns))]
        return _apply_dtypes(frame, params.dtypes, params.path)


class CsvOutputParams(OperatorParams):
    path: DataPath = Field(
        title="Path", description="CSV file to write, relative to the data root."
    )
    mode: WriteMode = Field(
        "overwrite",
        title="When the file exists",
        description="Replace it, add rows to its end, or stop with an error.",
    )
    delimiter: str = Field(
        ",", title="Delimiter", description="Character between fields.", min_length=1, max_length=1
    )
    header: bool = Field(True, title="Header row", description="Write the column names first.")


class CsvOutput(Operator):
    name = "csv_output"
    kind = "output"
    title = "Write CSV"
    description = "Write rows to a CSV file under the data root, all at once or not at all."
    inputs = (Port("in"),)
    outputs = ()
    Params = CsvOutputParams

    def output_schema(self, ctx, inputs):
        return {}

    def run(self, ctx, inputs):
        params: CsvOutputParams = ctx.params
        frame: pd.DataFrame = inputs["in"]
        path = ctx.resolve_path(params.path)

        def write(temporary: Path, appending: bool) -> None:
            frame.to_csv(
                temporary,
                mode="a" if appending else "w",
                sep=params.delimiter,
                header=params.header and not appending,
                index=False,
            )

        size = write_atomically(ctx, path, params.mode, write)
        ctx.metrics.update(path=params.path, rows_written=len(frame), bytes_out=size)
        ctx.logger.info(f"wrote {len(frame)} rows to {params.path}")
        return {}


def _existing_file(ctx: NodeContext, relative: str) -> Path:
    path = ctx.resolve_path(relative)
    if not path.is_file():
        raise OperatorError(
            f"input file '{relative}' not found under the data root '{ctx.data_root}'"
        )
    return path


def _apply_dtypes(frame: pd.DataFrame, dtypes: dict[str, TypeName], source: str) -> pd.DataFrame:
    missing = [name for name in dtypes if name not in frame.columns]
    if missing:
        raise OperatorError(
            f"column types name columns that '{source}' does not have: {', '.join(missing)}"
        )
    if not dtypes:
        return frame
    return frame.assign(**{name: cast_series(frame[name], kind) for name, kind in dtypes.items()})
