"""Running one segment on DuckDB: render its relations, open a locked session, fetch the exits
(after computing once, into a table, a costly part several exits read: shared.py), and count
every member's rows (counts.py).

Everything that can refuse (a file whose types pandas keeps its own way, a frame of an
unusual dtype, an expression DuckDB computes differently) refuses while rendering, before any
query runs: `run_segment` raises `NotLowerable` then, and the caller runs the segment on
pandas. One refusal comes only as the query runs: DuckDB's CSV reader cannot parse a file whose
lines end in more than one way (`\n` and `\r\n`, as files joined from two systems do), which
pandas reads; nothing is published then, and the segment runs on pandas, which reads the file
or says what is wrong with it. The exits come back as frames in the engine's dtype convention
(runtime/tables/frames.py).
"""

from __future__ import annotations

import secrets
import shutil
import threading
from collections.abc import Callable
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import duckdb

from runtime.backends.duckdb.bounds import refused
from runtime.backends.duckdb.counts import Tally
from runtime.backends.duckdb.messages import readable
from runtime.backends.duckdb.profiles import scan_name
from runtime.backends.duckdb.render import Renderer
from runtime.backends.duckdb.session import open_session
from runtime.backends.duckdb.shared import steps
from runtime.backends.duckdb.sinks import (
    SinkError,
    Written,
    run_sink,
    sinks,
    write_parquet,
    writes_of,
)
from runtime.budget import Budget
from runtime.document.spec import Source
from runtime.errors import MemberError, NodeCancelled, NotLowerable, OperatorError
from runtime.expressions.sql_parts import SQL_TYPES
from runtime.expressions.sql_parts import identifier as quoted
from runtime.io.paths import FileArea
from runtime.lazy import pa, pd
from runtime.relational import BROADCAST_NEEDS, Broadcast, Relation, scans_of
from runtime.tables.frames import to_pandas
from runtime.tables.schema import date_dtype, is_decimal_dtype
from runtime.tables.spilled import SpilledRows, frame_arrow

PROGRESS_INTERVAL_S = 0.2
Exit = tuple[str, str]
"""(node id, output port)"""


class SegmentError(MemberError):
    """A segment failed on DuckDB; `node` is the node at fault when it is known (the one
    reading the file a message names, or writing the output that failed). `retryable`
    follows the cause (a path out of the workspace stays wrong; a file being written may
    read on a second attempt)."""

    def __init__(self, message: str, node: str | None = None, retryable: bool = True):
        self.retryable = retryable
        super().__init__(message, node)


@dataclass(frozen=True)
class SegmentResult:
    frames: dict[Exit, pd.DataFrame]
    rows: dict[str, int | None]
    """Rows out per member node: exact, or None where DuckDB's profile does not show them
    (runtime/backends/duckdb/counts.py); an output node yields none."""
    written: dict[str, Written] = field(default_factory=dict)
    """What each output node among the members wrote."""


class Stopper:
    """What `on_stop` hands the caller: calling it interrupts the running query."""

    def __init__(self):
        self._lock = threading.Lock()
        self._connection = None
        self.stopped = False

    def __call__(self) -> None:
        with self._lock:
            self.stopped = True
            if self._connection is not None:
                self._connection.interrupt()

    def attach(self, connection) -> None:
        with self._lock:
            self._connection = connection

    def check(self) -> None:
        if self.stopped:
            raise NodeCancelled("the run was stopped")


class _MarkerInTypedColumn(Exception):
    """A CSV column of a type other than text or float held a null marker the reader took for
    a value (scans.py): the segment runs again with the markers matched in the reader."""


def run_segment(
    members: dict[str, dict[str, Relation]],
    exits: list[Exit],
    frames: dict[Source, pd.DataFrame],
    **options,
) -> SegmentResult:
    """`_run_once`, with CSV null markers matched after the read; once more with them matched
    in DuckDB's reader if a typed column held one (its cast failed, nothing was published)."""
    try:
        return _run_once(members, exits, frames, markers_in_reader=False, **options)
    except _MarkerInTypedColumn:
        return _run_once(members, exits, frames, markers_in_reader=True, **options)


def _run_once(
    members: dict[str, dict[str, Relation]],
    exits: list[Exit],
    frames: dict[Source, pd.DataFrame],
    *,
    files: FileArea | Path | str,
    spill_dir: Path,
    markers_in_reader: bool,
    budget: Budget | None = None,
    on_stop: Callable[[Callable[[], None]], None] | None = None,
    on_progress: Callable[[float], None] | None = None,
    run_id: str | int = "segment",
    commit: Callable[[Callable[[], None]], object] | None = None,
    copies: dict[Exit, Path] | None = None,
) -> SegmentResult:
    """Run the segment's exits and write its output files in one locked DuckDB session,
    spilling into `spill_dir` (created here and removed afterwards). `on_stop`, if given,
    receives a callable that interrupts the run from another thread; the run then raises
    `NodeCancelled`. `on_progress`, if given, is called from another thread with the share of
    the segment done so far (0 to 1, as DuckDB estimates it) a few times a second while it
    runs. Output files are staged under `run_id` and published, once every query is done,
    through `commit` (the node's, so that a stopped run publishes nothing; None: at once).
    `copies` are ports of members written as Parquet files (the result store's temporary
    files, which the caller adopts), each with the columns to write (None: all), computed
    in the same session as the exits."""
    copies = copies or {}
    files = FileArea.of(files)
    relations = {
        (node, port): relation
        for node, ports in members.items()
        for port, relation in ports.items()
    }
    writes = writes_of(members)
    roots = [*(relations[exit] for exit in exits), *(write.input for write in writes.values())]
    schedule = steps(roots)
    renderer = Renderer(files, lambda source: frame_table(frames[source]), None, markers_in_reader)
    try:
        computed = [step.relation for step in schedule]
        computed += [relations[port] for port in copies if relations[port] not in computed]
        rendered = dict(zip(computed, renderer.render(computed), strict=True))
    except OperatorError as error:  # a file that is missing, out of the area or unreadable
        retryable = getattr(error, "retryable", True)
        node = _node_named(str(error), members, renderer.query.scans)
        raise SegmentError(str(error), node, retryable) from error
    query = renderer.query
    zone = query.zone()
    read = query.files()
    outputs = sinks(writes, [rendered[write.input] for write in writes.values()])
    stopper = Stopper()
    if on_stop is not None:
        on_stop(stopper)
    spill_dir = Path(spill_dir)
    spill_dir.mkdir(parents=True, exist_ok=True)
    known = {
        **read,
        str(spill_dir.resolve()): "spill folder",
        str(spill_dir): "spill folder",
    }
    tally = Tally(
        {path: scan_name(files) for path, files in query.scans.items()},
        {source: len(frame) for source, frame in frames.items()},
    )
    connection = None
    staging = ExitStack()
    try:
        written_by_duckdb = staging.enter_context(outputs.staged(files, run_id))
        known.update(outputs.names())
        known.update({str(path): "the result store" for path, _ in copies.values()})
        stopper.check()
        reads = [*(Path(path) for path in read), *query.spills]
        budget = budget or Budget.from_environment()
        allowed = [*written_by_duckdb, *(path for path, _ in copies.values())]
        keep_order = query.reads_in_order(rendered.values())
        connection = open_session(reads, spill_dir, budget, allowed, keep_order, zone)
        stopper.attach(connection)
        for name, table in query.tables.items():
            connection.register(name, table)
        _bounded(query, connection, members)
        _copied(copies, relations, rendered, connection, query, tally, stopper)
        done = _ran(schedule, connection, query, rendered, tally, stopper, on_progress, outputs)
        stopper.check()
        written = outputs.publish(commit or (lambda publish: publish()))
    except SinkError as error:
        stopper.check()  # a write that a stop cut short
        raise SegmentError(str(error), error.node, error.retryable) from error
    except duckdb.InterruptException as error:
        raise NodeCancelled("the run was stopped") from error
    except duckdb.ConversionException as error:
        if query.markers_after_read:
            raise _MarkerInTypedColumn from error
        raise _failed(error, known, members, query, read) from None
    except duckdb.InvalidInputException as error:
        if _CSV_UNPARSED in str(error):
            raise _csv_refused(readable(str(error), known), read.values()) from None
        raise _failed(error, known, members, query, read) from None
    except duckdb.Error as error:
        raise _failed(error, known, members, query, read) from None
    finally:
        if connection is not None:
            stopper.attach(None)
            connection.close()
        staging.close()  # the staged files that were not published
        shutil.rmtree(spill_dir, ignore_errors=True)
    results = {exit: to_pandas(done[relations[exit]]) for exit in exits}
    rows = {**tally.rows(members), **dict.fromkeys(writes, 0)}  # an output node yields none
    return SegmentResult(results, rows, written)


_CSV_UNPARSED = "CSV Parser state machine reached an invalid state"


def _csv_refused(message: str, names) -> NotLowerable:
    """The segment's CSV file that DuckDB's reader could not parse, handed to pandas."""
    found = [name for name in names if name in message]
    file = f"'{max(found, key=len)}'" if found else "a CSV file"
    why = "its lines may end in more than one way"
    return NotLowerable(f"DuckDB's CSV reader cannot parse {file} ({why}); pandas reads it")


def _failed(error: duckdb.Error, known: dict, members, query, read: dict) -> SegmentError:
    """DuckDB's error in the words of the run: the node it concerns, the files by their names."""
    full = readable(str(error), known)
    node = _node_named(full, members, query.scans) or _broadcasting(full, members)
    return SegmentError(_naming_the_file(full, read.values()), node)


def _bounded(query, connection, members) -> None:
    """Fail the node whose expression would build more text than pandas allows (bounds.py)."""

    def run(selected: str, source: str, params: list) -> tuple:
        sql, values = query.select(selected, source, params)
        [row] = connection.execute(sql, values).fetchall()
        return row

    found = refused(query.checks, run)
    if found is not None:
        check, error = found
        node = next(
            (node for node, ports in members.items() if check.relation in ports.values()), None
        )
        raise SegmentError(check.message(error), node, retryable=False)


def _ran(schedule, connection, query, rendered, tally, stopper, on_progress, outputs) -> dict:
    """Run the steps in their order: the parts computed once, the exits' rows (by relation)
    and the output files, each part read from its table by the steps after it. The steps that
    are not parts come in the order of the roots they were made from: exits, then outputs."""
    done: dict[Relation, pa.Table] = {}
    stored: dict[Relation, str] = {}
    exits = sum(step.table is None for step in schedule) - len(outputs)
    readers = iter([*([None] * exits), *outputs])
    for index, step in enumerate(schedule):
        stopper.check()
        part = rendered[step.relation]
        with _reporting(connection, on_progress, index, len(schedule)):
            if step.table is not None:
                sql, params = query.stored_sql(part, step.table)
                (rows,) = connection.execute(sql, params).fetchall()[0]
            elif (sink := next(readers)) is not None:
                run_sink(connection, sink, query.exit_sql)
                rows = sink.rows
            else:
                sql, params = query.exit_sql(part)
                done[step.relation] = connection.sql(sql, params=params).to_arrow_table()
                rows = done[step.relation].num_rows
        stopper.check()  # a stop that came as the query began: its rows are not used
        tally.query_ran(step.relation, connection.get_profiling_information(), stored)
        tally.counted(step.relation, rows)
        if step.table is not None:
            query.stored(part, step.table)
            stored[step.relation] = step.table
        for table in step.done_with:
            connection.execute(f"DROP TABLE {quoted(table)}")
    return done


def _copied(copies, relations, rendered, connection, query, tally, stopper) -> None:
    """Write each port in `copies` (parents first) to its Parquet file with DuckDB's COPY:
    the columns anything downstream reads (the rest are never stored), then let every later
    query read the port from that file, the columns it lacks as nulls, which nothing reads.
    The segment then streams from the stored result and does not compute the port again.
    A port whose order rides in hidden columns (an aggregate's groups, a sort's rows), which
    the file does not hold, is computed once into a temporary table that keeps them: the
    file is copied from it and later queries read it (computing it again for them cost the
    seed ETL's cold run a second scan of its file)."""
    token = secrets.token_hex(4)
    for index, (port, (path, columns)) in enumerate(copies.items()):
        stopper.check()
        relation = relations[port]
        part = rendered[relation]
        names = part.schema.names if columns is None else [
            name for name in part.schema.names if name in columns
        ]  # fmt: skip
        if part.order:
            table = f"__pw_stored{index}_{token}"
            connection.execute(*query.stored_sql(part, table))
            tally.query_ran(relation, connection.get_profiling_information())
            query.stored(part, table)
        sql, params = query.exit_sql(part, [quoted(name) for name in names])
        if query.zone() == "UTC":
            copy = f"COPY ({sql}) TO ? (FORMAT parquet, COMPRESSION snappy)"
            [(rows,)] = connection.execute(copy, [*params, str(path)]).fetchall()
        else:  # COPY would name the datetimes' zone UTC: pyarrow writes the session's
            rows = write_parquet(connection, sql, params, path, None, "snappy", str(path))
        if not part.order:
            tally.query_ran(relation, connection.get_profiling_information())
        tally.counted(relation, rows)
        if not part.order:
            selected = [
                quoted(column.name)
                if column.name in names
                else f"CAST(NULL AS {_sql_type(column.type)}) AS {quoted(column.name)}"
                for column in part.schema.columns
            ]
            body = f"SELECT {', '.join(selected) or '*'} FROM read_parquet(?)"
            query.read_from(part, body, (str(path),))


def _sql_type(type_name: str) -> str:
    return SQL_TYPES.get(type_name, "TIMESTAMP" if type_name == "datetime" else "VARCHAR")


@contextmanager
def _reporting(connection, on_progress, index: int, count: int):
    """While the block runs, report DuckDB's progress on query `index` of `count`."""
    if on_progress is None:
        yield
        return
    done = threading.Event()

    def report() -> None:
        while not done.wait(PROGRESS_INTERVAL_S):
            percent = connection.query_progress()
            if percent >= 0:
                on_progress((index + min(percent, 100.0) / 100) / count)

    watcher = threading.Thread(target=report, name="duckdb-progress", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()


@cache
def _conventional() -> tuple:
    return (pd.Int64Dtype(), pd.BooleanDtype(), pd.Float64Dtype(), date_dtype())


def frame_table(frame: pd.DataFrame | SpilledRows) -> pa.Table | SpilledRows:
    """A frame entering the segment, as Arrow (NaN becomes null, as pandas reads it); rows an
    input spilled stay in their file, which the segment scans (their columns checked alike)."""
    spilled = isinstance(frame, SpilledRows)
    dtypes = to_pandas(frame.schema.empty_table()).dtypes if spilled else frame.dtypes
    for name, dtype in dtypes.items():
        plain = dtype == "float64" or isinstance(dtype, pd.StringDtype)
        timed = pd.api.types.is_datetime64_dtype(dtype) and getattr(dtype, "tz", None) is None
        if not (plain or timed or dtype in _conventional() or is_decimal_dtype(dtype)):
            raise NotLowerable(f"column '{name}' is held as {dtype}, which stays on pandas")
    return frame if spilled else frame_arrow(frame)


def _first_paragraph(message: str) -> str:
    """DuckDB's message up to its advice (which names its own options, not the node's)."""
    lines = message.split("\n\n", 1)[0].splitlines()
    return "; ".join(line.strip() for line in lines if line.strip())


def _naming_the_file(message: str, names) -> str:
    """The first paragraph of DuckDB's message, with the file read that only the rest of it
    names (a scan of several files says which one failed further down)."""
    first = _first_paragraph(message)
    found = [name for name in names if name in message]
    if not found or any(name in first for name in found):
        return first
    return f"{first} (in '{max(found, key=len)}')"


def _broadcasting(message: str, members: dict[str, dict[str, Relation]]) -> str | None:
    """The broadcast node whose value gave too many rows, if that is the message (the first
    broadcast of the segment: the message does not say which one)."""
    if BROADCAST_NEEDS not in message:
        return None
    return next(
        (
            node
            for node, ports in members.items()
            if any(isinstance(relation, Broadcast) for relation in ports.values())
        ),
        None,
    )


def _node_named(message: str, members: dict[str, dict[str, Relation]], scans) -> str | None:
    """The node whose scan reads the path or a file the message names, if any (parents come
    first, so the reading node is found before those that consume its rows)."""
    for node, ports in members.items():
        for relation in ports.values():
            for scan in scans_of(relation):
                named = [scan.path, *(file.name for file in scans.get(scan.path, ()))]
                if any(name in message for name in named):
                    return node
    return None
