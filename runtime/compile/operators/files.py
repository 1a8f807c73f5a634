"""Emitters of the file operators: read an input's files (one, a folder's or a pattern's) as
the runtime reads them (through Arrow, into the engine's dtypes, joined by the runtime's own
rules), write an output as the runtime writes it, whole or not at all."""

from __future__ import annotations

from runtime.compile import support
from runtime.compile.literals import literal
from runtime.compile.nodes import NodeCode
from runtime.compile.operators import emits
from runtime.io import file_patterns, paths
from runtime.operators import (
    column_names,
    csv_files,
    excel_files,
    file_common,
    json_files,
    parquet_files,
)
from runtime.tables.frames import to_pandas


def _read(node: NodeCode, endings: tuple[str, ...], reader: list[str], **params: object) -> None:
    """Lines setting `table` to the rows of the files the input's path names, as a run reads
    them: `reader` is the body of `read_one(file, row_limit)`, reading one into an Arrow table
    (`context.columns`: the columns to read, as a run prunes them; `context.params`: the
    node's `file_name_column` and `params`); `input_files` lists the files (one file, a
    folder's or a pattern's, checked to stay inside the data root) and `read_files` joins
    them, both carried from the runtime."""
    node.carry(file_patterns.input_files, paths.FileArea, file_common.read_files)
    node.carry(support.ScriptContext)
    node.line("def read_one(file, row_limit):")
    for text in reader:
        node.line(f"    {text}")
    settings = {"file_name_column": node.fixed("file_name_column"), **params}
    listed = ", ".join(f"{name}={literal(value)}" for name, value in settings.items())
    node.line(f"context = ScriptContext({listed})")
    if node.columns is not None:
        node.line(f"context.columns = {literal(node.columns)}  # what anything downstream reads")
    node.line(f"files = input_files(FileArea(root), {node.value('path')}, {endings!r})")
    node.line("table = read_files(context, files, read_one, None)")


@emits("csv_input")
def csv_input(node: NodeCode) -> None:
    params = node.params
    node.imports |= {"import pyarrow as pa", "from pyarrow import csv as pa_csv"}
    node.carry(to_pandas, csv_files.apply_dtypes)
    columns = list(params.columns) if params.columns else None
    included = repr(columns)
    settings = {}
    if node.columns is not None and params.header:  # each file's header says what to read
        node.carry(csv_files.columns_to_read)
        included = "columns_to_read(context, context.params, file.location)"
        settings = {
            name: getattr(params, name)
            for name in ("columns", "header", "dtypes", "encoding", "skip_rows", "delimiter")
        }
    reader = [
        "table = pa_csv.read_csv(",
        "    file.location,",
        f"    pa_csv.ReadOptions(skip_rows={params.skip_rows!r}, "
        f"autogenerate_column_names={not params.header!r}, encoding={params.encoding!r}, "
        f"block_size={csv_files.BLOCK_BYTES}),",
        f"    pa_csv.ParseOptions(delimiter={params.delimiter!r}),",
        f"    pa_csv.ConvertOptions(include_columns={included}, strings_can_be_null=True),",
        ")",
    ]
    if not params.header:
        reader.append(
            'table = table.rename_columns([f"column_{i + 1}" for i in range(table.num_columns)])'
        )
    _read(node, csv_files.CSV_ENDINGS, [*reader, "return table"], **settings)
    dtypes = dict(params.dtypes)
    path = node.value("path")
    node.line(f"{node.outputs['out']} = apply_dtypes(to_pandas(table), {dtypes!r}, {path})")


@emits("parquet_input")
def parquet_input(node: NodeCode) -> None:
    node.imports |= {"import pyarrow as pa", "import pyarrow.parquet as pq"}
    node.carry(to_pandas, file_common.conform_table)
    columns = list(node.fixed("columns") or [])
    reader = [
        "with pq.ParquetFile(file.location) as parquet:",
        "    schema = pa.Table.from_batches([], schema=parquet.schema_arrow).schema",
    ]
    if columns:
        reader.append(
            f"    schema = pa.Table.from_batches([], schema=schema).select({columns!r}).schema"
        )
    if node.columns is not None:
        node.carry(column_names.read_names)
        reader += [
            "    kept = read_names(schema.names, context.columns)",
            "    if kept != schema.names:",
            "        schema = pa.Table.from_batches([], schema=schema).select(kept).schema",
        ]
    reader += [
        f"    batches = parquet.iter_batches(batch_size={parquet_files.BATCH_ROWS}, "
        "columns=schema.names)",
        "    return conform_table(pa.Table.from_batches(list(batches), schema=schema))",
    ]
    _read(node, parquet_files.PARQUET_ENDINGS, reader)
    node.line(f"{node.outputs['out']} = to_pandas(table)")


def _written(node: NodeCode, lines: list[str]) -> None:
    """`lines` writing the frame to `temporary` (appending to its copy when `appending`)."""
    path = node.value("path")
    node.line(f"with staged(root, {path}, {node.value('mode')}) as (temporary, appending):")
    for text in lines:
        node.line(f"    {text}")
    node.line(f'print("wrote", len({node.inputs["in"]}), "rows to", {path})')


@emits("csv_output")
def csv_output(node: NodeCode) -> None:
    frame = node.inputs["in"]
    params = node.params
    node.carry(csv_files.holds_carriage_return)
    _written(
        node,
        [
            f"{frame}.to_csv(",
            "    temporary,",
            '    mode="a" if appending else "w",',
            f"    sep={params.delimiter!r},",
            "    header=not appending," if params.header else "    header=False,",
            "    index=False,",
            f'    lineterminator="\\r\\n" if holds_carriage_return({frame}) else "\\n",',
            ")",
        ],
    )


@emits("parquet_output")
def parquet_output(node: NodeCode) -> None:
    frame = node.inputs["in"]
    compression = node.fixed("compression")
    compression = None if compression == "none" else compression
    node.imports |= {"import pyarrow.parquet as pq"}
    node.carry(parquet_files.parquet_table, parquet_files.appended)
    _written(
        node,
        [
            f"table = parquet_table({frame})",
            "if appending:",
            f"    table = appended(pq.read_table(temporary), table, {node.value('path')})",
            f"pq.write_table(table, temporary, compression={compression!r})",
        ],
    )


@emits("json_input")
def json_input(node: NodeCode) -> None:
    node.imports.add("import pyarrow as pa")
    node.carry(to_pandas, json_files.read_json_file)
    lines = node.fixed("lines")
    reader = [
        f"return read_json_file(context, file.location, file.name, {lines!r}, None, "
        "context.columns)"
    ]
    _read(node, json_files.JSON_ENDINGS, reader)
    node.line(f"{node.outputs['out']} = to_pandas(table)")


@emits("json_output")
def json_output(node: NodeCode) -> None:
    node.carry(json_files.write_json_file)
    _written(
        node,
        [
            f"write_json_file({node.inputs['in']}, temporary, appending, {node.value('path')}, "
            f"{node.fixed('lines')!r})"
        ],
    )


@emits("excel_input")
def excel_input(node: NodeCode) -> None:
    node.imports.add("import pyarrow as pa")
    node.carry(to_pandas, excel_files.read_sheet)
    reader = [
        f"return read_sheet(file.location, file.name, {node.value('sheet')}, None, context.columns)"
    ]
    _read(node, excel_files.EXCEL_ENDINGS, reader)
    node.line(f"{node.outputs['out']} = to_pandas(table)")


@emits("excel_output")
def excel_output(node: NodeCode) -> None:
    node.carry(excel_files.write_sheet)
    _written(
        node,
        [
            f"write_sheet({node.inputs['in']}, temporary, appending, {node.value('path')}, "
            f"{node.value('sheet')})"
        ],
    )
