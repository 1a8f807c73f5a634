"""A DuckDB segment written as a script's code: its statements as texts, run by `duckdb`.

The block lists the files each scan reads under the script's data root (checked to hold the
columns the SQL was rendered for), opens a DuckDB connection, registers the frames that enter
from pandas nodes as Arrow tables, and runs each statement with its bound values as a Python
list beside it: an exit's rows become the pandas frame of the node the rest of the script
reads, an output's rows go to a temporary file beside its target, renamed over it once
written, as a run's DuckDB sink writes it. SQL text and values reach the code through
`repr()` only (`literal`), like every value of a script.
"""

from __future__ import annotations

from collections.abc import Callable

from runtime.backends.duckdb.segment import frame_table
from runtime.backends.duckdb.sinks import write_parquet
from runtime.compile import support
from runtime.compile.literals import literal
from runtime.compile.nodes import NodeCode
from runtime.compile.segments import Scanned, SegmentSql, Statement
from runtime.io.file_patterns import input_files
from runtime.io.paths import FileArea
from runtime.operators.csv_files import CSV_ENDINGS
from runtime.operators.parquet_files import PARQUET_ENDINGS
from runtime.tables.frames import to_pandas

LOCALS = ("read_paths", "read_names", "spill", "sql", "bound", "files", "connection", "rows")
"""Names the block's own statements use."""
_CONFIG = '{"preserve_insertion_order": True, "temp_directory": spill}'
"""The session a run opens keeps insertion order (row order is part of the result) and
spills into a folder of its own."""


class SegmentCode:
    """The lines of one segment's block, the helpers they call and their imports."""

    def __init__(
        self,
        found: SegmentSql,
        slots: dict[tuple[int, int], str],
        node_code: Callable[[str], NodeCode],
        frames: dict[tuple[str, str], str],
    ):
        self.found = found
        self.slots = slots
        """(statement, position) → code of a bound value that is a parameter."""
        self.node_code = node_code
        self.frames = frames
        """Each (node, port) → the variable holding its frame."""
        self.lines: list[str] = []
        self.helpers: set = set()
        self.imports = {"import duckdb", "import tempfile"}

    def write(self) -> SegmentCode:
        self._scans()
        self.lines.append(
            f"with tempfile.TemporaryDirectory() as spill, duckdb.connect(config={_CONFIG}) "
            "as connection:"
        )
        body = [f"connection.execute({f'SET TimeZone = {self.found.zone!r}'!r})"]
        for name, (node, port) in self.found.frames:
            self.helpers.add(frame_table)
            body.append(f"connection.register({name!r}, frame_table({self.frames[node, port]}))")
        for index, statement in enumerate(self.found.statements):
            body += self._statement(index, statement)
        self.lines += [f"    {line}" if line else "" for line in body]
        return self

    def _scans(self) -> None:
        """Lines listing each scan's files under the data root and checking their columns."""
        if not self.found.scans:
            return
        self.helpers |= {input_files, FileArea}
        self.lines.append("read_paths, read_names = {}, {}")
        for node_id, scan in self.found.scans.items():
            node = self.node_code(node_id)
            endings = CSV_ENDINGS if scan.format == "csv" else PARQUET_ENDINGS
            columns = literal(self.found.columns[node_id])
            self.lines.append(
                f"files = input_files(FileArea(root), {node.value('path')}, {endings!r})"
            )
            read = f"read_paths[{node_id!r}], read_names[{node_id!r}]"
            if scan.format == "csv":
                self.helpers.add(support.csv_as_compiled)
                options = [scan.option(name) for name in ("delimiter", "header", "skip_rows")]
                arguments = ", ".join(literal(value) for value in options)
                self.lines.append(f"{read} = csv_as_compiled(files, {columns}, {arguments})")
            else:
                self.helpers.add(support.parquet_as_compiled)
                self.lines.append(f"{read} = parquet_as_compiled(files, {columns})")
            self.helpers |= node.helpers

    def _statement(self, index: int, statement: Statement) -> list[str]:
        if statement.kind == "drop":
            return [f"connection.execute({statement.sql!r})"]
        lines = ["sql = (", *(f"    {line!r}" for line in _lines(statement.sql)), ")"]
        lines += self._values(index, statement.params)
        if statement.kind == "table":
            return [*lines, "connection.execute(sql, bound)"]
        if statement.kind == "exit":
            self.helpers.add(to_pandas)
            first, *others = [self.frames[exit] for exit in statement.exits]
            lines.append(f"{first} = to_pandas(connection.sql(sql, params=bound).to_arrow_table())")
            return lines + [f"{other} = {first}" for other in others]
        return lines + self._sink(statement)

    def _sink(self, statement: Statement) -> list[str]:
        """An output node's file, staged beside its target and renamed over it."""
        sink = statement.sink
        node = self.node_code(sink.node)
        path = node.value("path")
        lines = [f"with staged(root, {path}, {node.value('mode')}) as (temporary, appending):"]
        if sink.write.format == "csv":
            self.helpers.add(support.csv_by_duckdb)
            writing = (
                f"csv_by_duckdb(connection, sql, bound, temporary, appending, "
                f"{node.value('delimiter')}, {node.value('header')})"
            )
        else:
            self.helpers.add(write_parquet)
            writing = (
                f"write_parquet(connection, sql, bound, temporary, "
                f"temporary if appending else None, {node.value('compression')}, {path})"
            )
        self.helpers |= node.helpers
        node.finish()
        return [*lines, f"    rows = {writing}", f'print("wrote", rows, "rows to", {path})']

    def _values(self, index: int, params: list) -> list[str]:
        """Lines setting `bound` to the statement's values, one a line, in `?` order."""
        items = []
        for position, value in enumerate(params):
            if (index, position) in self.slots:
                items.append(self.slots[index, position])
            elif isinstance(value, Scanned):
                kind = "read_names" if value.names else "read_paths"
                items.append(f"{kind}[{value.node!r}]")
            else:
                items.append(literal(value))
        if not items:
            return ["bound = []"]
        return ["bound = [", *(f"    {item}," for item in items), "]"]


def _lines(sql: str) -> list[str]:
    """The statement's lines, each ending in its newline but the last."""
    lines = sql.split("\n")
    return [line + "\n" for line in lines[:-1]] + lines[-1:]
