"""Emitters of the file operators: read a CSV or Parquet file as the runtime reads it (through
Arrow, into the engine's dtypes), write one as the runtime writes it, whole or not at all."""

from __future__ import annotations

from runtime.compile import support
from runtime.compile.errors import CompileRefused
from runtime.compile.nodes import NodeCode
from runtime.compile.operators import emits
from runtime.file_patterns import is_pattern
from runtime.frames import to_pandas
from runtime.operators import csv_files, excel_files, file_common, json_files, parquet_files


def _one_file(node: NodeCode) -> str:
    """The code of the input's path, refusing what names several files."""
    path = node.fixed("path")
    if is_pattern(path) or (node.data_root is not None and (node.data_root / path).is_dir()):
        raise CompileRefused(
            "reading a folder or a pattern of files is not compiled; name one file", node.id
        )
    return node.value("path")


def _file_name_column(node: NodeCode, table: str) -> None:
    name = node.fixed("file_name_column")
    if name is None:
        return
    node.line(f"if {name!r} in {table}.column_names:")
    node.line(f"    raise ParamsError({f'the file already has a column {name!r}'!r})")
    node.line(
        f"{table} = {table}.append_column(pa.field({name!r}, pa.string(), False), "
        f"pa.repeat(pa.scalar({node.value('path')}, pa.string()), {table}.num_rows))"
    )


@emits("csv_input")
def csv_input(node: NodeCode) -> None:
    params = node.params
    path = _one_file(node)
    node.imports |= {"import pyarrow as pa", "from pyarrow import csv as pa_csv"}
    node.carry(to_pandas, csv_files._apply_dtypes)
    columns = list(params.columns) if params.columns else None
    node.line("table = pa_csv.read_csv(")
    node.line(f"    data_path(root, {path}),")
    node.line(
        f"    pa_csv.ReadOptions(skip_rows={params.skip_rows!r}, "
        f"autogenerate_column_names={not params.header!r}, encoding={params.encoding!r}, "
        f"block_size={csv_files.BLOCK_BYTES}),"
    )
    node.line(f"    pa_csv.ParseOptions(delimiter={params.delimiter!r}),")
    node.line(f"    pa_csv.ConvertOptions(include_columns={columns!r}, strings_can_be_null=True),")
    node.line(")")
    if not params.header:
        node.line(
            'table = table.rename_columns([f"column_{i + 1}" for i in range(table.num_columns)])'
        )
    _file_name_column(node, "table")
    dtypes = dict(params.dtypes)
    node.line(f"{node.outputs['out']} = _apply_dtypes(to_pandas(table), {dtypes!r}, {path})")


@emits("parquet_input")
def parquet_input(node: NodeCode) -> None:
    path = _one_file(node)
    node.imports |= {"import pyarrow as pa", "import pyarrow.parquet as pq"}
    node.carry(to_pandas, file_common.conform_table)
    columns = list(node.fixed("columns") or [])
    node.line(f"with pq.ParquetFile(data_path(root, {path})) as parquet:")
    node.line("    schema = pa.Table.from_batches([], schema=parquet.schema_arrow).schema")
    if columns:
        node.line(
            f"    schema = pa.Table.from_batches([], schema=schema).select({columns!r}).schema"
        )
    node.line(
        f"    batches = parquet.iter_batches(batch_size={parquet_files.BATCH_ROWS}, "
        "columns=schema.names)"
    )
    node.line("    table = conform_table(pa.Table.from_batches(list(batches), schema=schema))")
    _file_name_column(node, "table")
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
    node.carry(csv_files._holds_carriage_return)
    _written(
        node,
        [
            f"{frame}.to_csv(",
            "    temporary,",
            '    mode="a" if appending else "w",',
            f"    sep={params.delimiter!r},",
            "    header=not appending," if params.header else "    header=False,",
            "    index=False,",
            f'    lineterminator="\\r\\n" if _holds_carriage_return({frame}) else "\\n",',
            ")",
        ],
    )


@emits("parquet_output")
def parquet_output(node: NodeCode) -> None:
    frame = node.inputs["in"]
    compression = node.fixed("compression")
    compression = None if compression == "none" else compression
    node.imports |= {"import pyarrow.parquet as pq"}
    node.carry(parquet_files._arrow, parquet_files.appended)
    _written(
        node,
        [
            f"table = _arrow({frame})",
            "if appending:",
            f"    table = appended(pq.read_table(temporary), table, {node.value('path')})",
            f"pq.write_table(table, temporary, compression={compression!r})",
        ],
    )


@emits("json_input")
def json_input(node: NodeCode) -> None:
    path = _one_file(node)
    node.imports.add("import pyarrow as pa")
    node.carry(to_pandas, json_files.read_json_file, support.ScriptContext)
    node.line(
        f"table = read_json_file(ScriptContext(), data_path(root, {path}), {path}, "
        f"{node.fixed('lines')!r}, None)"
    )
    _file_name_column(node, "table")
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
    path = _one_file(node)
    node.imports.add("import pyarrow as pa")
    node.carry(to_pandas, excel_files.read_sheet)
    node.line(f"table = read_sheet(data_path(root, {path}), {path}, {node.value('sheet')}, None)")
    _file_name_column(node, "table")
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
