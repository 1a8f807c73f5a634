"""DuckDB segments of a compiled script: the SQL a run sends DuckDB, rendered by the runtime.

Where the plan puts a segment on DuckDB, the script runs it as `run_segment` does: the same
renderer (runtime/backends/duckdb/render.py) turns the segment's relations into statements, in
the order a run runs them (the parts several queries read into temporary tables, then the
exits' rows, then the outputs' files, as sinks.py writes them). Only what a run finds out
when it runs stays code in the script: the files a scan reads (listed under `--data-root`;
`Scanned` stands for them here), the frames that enter from pandas nodes, the temporary files
the outputs are staged in, and the pipeline's parameters (`bound.py`).

Belongs here: rendering a segment into statements. Does not belong here: writing them as
code (`segment_code.py`), or matching bound values to parameters (`bound.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pyarrow as pa

from runtime import relational as rel
from runtime.backends.duckdb.render import Renderer
from runtime.backends.duckdb.shared import steps
from runtime.backends.duckdb.sinks import Sink, sinks, statement, writes_of
from runtime.compile.support import parquet_columns
from runtime.document.spec import Source
from runtime.errors import NotLowerable, PipewrightError
from runtime.expressions.sql_parts import identifier as quoted
from runtime.io.paths import FileArea
from runtime.plan.model import Segment
from runtime.tables.schema import Schema

TOKEN = "script"
"""The end of the names of a script's CTEs and tables (a run draws a random one)."""
ARROW_TYPES = {
    "integer": pa.int64(),
    "float": pa.float64(),
    "boolean": pa.bool_(),
    "string": pa.string(),
    "date": pa.date32(),
    "datetime": pa.timestamp("ns"),
}
"""The Arrow type of a frame column of each public type, as `frame_table` gives it."""


@dataclass(frozen=True)
class Scanned:
    """A bound value the script finds when it runs: the real paths of the files node `node`
    reads, or (`names`) their names as its path names them."""

    node: str
    names: bool = False


@dataclass
class Statement:
    """One statement of a segment: `kind` says what the script does with its rows."""

    kind: str
    """`table` (a part computed once), `exit` (rows a pandas node reads), `sink` (an output
    node's file) or `drop` (a part no later statement reads)."""
    sql: str
    params: list
    exits: list[Source] = field(default_factory=list)
    sink: Sink | None = None


@dataclass
class SegmentSql:
    """A segment as the script runs it."""

    segment: Segment
    scans: dict[str, rel.Scan]
    """The input nodes among the members, each with the scan it lowered to."""
    columns: dict[str, object]
    """Each input node's columns as the query reads them: name → DuckDB type for CSV files,
    [name, Arrow type] pairs for Parquet ones (support.py checks the files against them)."""
    frames: list[tuple[str, Source]]
    """The tables registered for frames entering the segment, with the output each holds."""
    statements: list[Statement]
    zone: str = "UTC"
    """The session's time zone (the scans' datetimes', render.py `Query.zone`)."""


class _ScriptRenderer(Renderer):
    """The runtime's renderer, with each scan's list of files (which the script lists under
    its own data root) as `Scanned` values, and null markers matched by DuckDB's reader (a
    script does not run a segment again when a typed column holds one)."""

    def __init__(self, files: FileArea, frame_table, readers: dict[rel.Scan, str]):
        super().__init__(files, frame_table, TOKEN, markers_in_reader=True)
        self.readers = readers
        self.columns: dict[str, object] = {}

    def _scan(self, relation: rel.Scan):
        rendered = super()._scan(relation)
        name, body, params = self.query.ctes[-1]
        files = self.query.scans[relation.path]
        node = self.readers[relation]
        locations = [str(file.location) for file in files]
        replaced = [Scanned(node) if value == locations else value for value in params]
        if relation.option("file_name_column") is not None:
            replaced[0] = Scanned(node, names=True)
        self.query.ctes[-1] = (name, body, tuple(replaced))
        if relation.format == "csv":
            self.columns[node] = next(value for value in params if isinstance(value, dict))
        else:
            self.columns[node] = parquet_columns(files[0].location)
        return rendered


def segment_sql(
    segment: Segment,
    exits: list[Source],
    files: FileArea,
    schema_of: Callable[[Source], Schema],
) -> SegmentSql:
    """The statements of `segment` whose `exits` pandas nodes read (`NotLowerable` when a
    run would find, rendering it, that it runs on pandas); `schema_of` gives the columns of
    a frame entering it."""
    members = segment.relations
    relations = {
        (node, port): found for node, ports in members.items() for port, found in ports.items()
    }
    writes = writes_of(members)
    paths = [_target(files, write.path) for write in writes.values()]
    if len(set(paths)) < len(paths):
        raise NotLowerable("a file is written twice, in turn on pandas")  # as staging finds
    readers = _readers(members)
    registered: list[Source] = []

    def frame_table(source: Source) -> pa.Table:
        registered.append(source)
        schema = schema_of(source)
        for column in schema.columns:
            if column.type not in ARROW_TYPES:  # a decimal's precision is the frame's alone
                raise NotLowerable(f"column '{column.name}' is {column.type}, kept on pandas")
        return pa.table({c.name: pa.array([], ARROW_TYPES[c.type]) for c in schema.columns})

    roots = [*(relations[exit] for exit in exits), *(write.input for write in writes.values())]
    schedule = steps(roots, TOKEN)
    renderer = _ScriptRenderer(files, frame_table, readers)
    computed = [step.relation for step in schedule]
    rendered = dict(zip(computed, renderer.render(computed), strict=True))
    query = renderer.query
    outputs = sinks(writes, [rendered[write.input] for write in writes.values()])
    statements = _statements(schedule, rendered, query, outputs, exits, relations)
    frames = list(zip(query.tables, registered, strict=True))
    scans = {node: scan for scan, node in readers.items()}
    return SegmentSql(segment, scans, renderer.columns, frames, statements, query.zone())


def _statements(schedule, rendered, query, outputs, exits, relations) -> list[Statement]:
    """The statements in the order `runtime.backends.duckdb.segment._ran` runs them."""
    found: list[Statement] = []
    count = sum(step.table is None for step in schedule) - len(outputs)
    readers = iter([*([None] * count), *outputs])
    for step in schedule:
        part = rendered[step.relation]
        if step.table is not None:
            sql, params = query.stored_sql(part, step.table)
            found.append(Statement("table", sql, list(params)))
            query.stored(part, step.table)
        elif (sink := next(readers)) is not None:
            sql, params = statement(sink, query.exit_sql)
            found.append(Statement("sink", sql, list(params), sink=sink))
        else:
            sql, params = query.exit_sql(part)
            reading = [exit for exit in exits if relations[exit] == step.relation]
            found.append(Statement("exit", sql, list(params), exits=reading))
        for table in step.done_with:
            found.append(Statement("drop", f"DROP TABLE {quoted(table)}", []))
    return found


def _target(files: FileArea, path: str) -> object:
    """Where an output's file is, to tell two alike (a path out of the area: as written; the
    script refuses it when it runs, as a run does)."""
    try:
        return files.resolve(path)
    except PipewrightError:
        return path


def _readers(members: dict[str, dict[str, rel.Relation]]) -> dict[rel.Scan, str]:
    """Each scan of the segment, with the input node it belongs to (members come parents
    first, so an input node finds its scan before the nodes reading it; the first of two
    reading alike)."""
    readers: dict[rel.Scan, str] = {}
    for node, ports in members.items():
        for relation in ports.values():
            pending = [relation]
            while pending:
                item = pending.pop()
                if isinstance(item, rel.Scan) and not isinstance(item, rel.Stored):
                    readers.setdefault(item, node)
                else:
                    pending.extend(item.children())
    return readers
