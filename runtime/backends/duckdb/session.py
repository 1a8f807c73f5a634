"""A DuckDB connection locked down for one segment of one run.

It may read exactly the files the segment reads (each already checked against the run's file
area, symlinks resolved), write exactly the staged output files it writes and, besides them,
only its spill folder; then external access is switched
off and the configuration locked, so SQL cannot widen either, attach databases, install or
load extensions (the machine is offline: autoinstall and autoload are off). Memory and threads
come from the run's budget; past the memory limit, joins, aggregates and sorts spill.

Each thread holds buffers of its own (a Parquet row group being read, a sort's run) that
must fit before anything can spill, so a small budget runs on fewer threads: with 64 MiB and
two threads, a sort fails at once ("could not allocate block"); on one it spills and finishes.
Insertion order is kept only when the segment reads some stream in its order (`keep_order`):
otherwise DuckDB may return and store rows as its threads finish them, buffering none.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import duckdb

from runtime.budget import MEMORY_PER_THREAD, Budget
from runtime.expressions.sql_parts import string_literal

PROFILED = ["operator.name", "operator.type", "operator.extra_info", "operator.intermediate_rows"]


def open_session(
    reads: Iterable[Path],
    spill_dir: Path,
    budget: Budget,
    writes: Iterable[Path] = (),
    keep_order: bool = True,
    zone: str = "UTC",
):
    """A connection that may read `reads`, write `writes` (temporary files beside the outputs,
    which a run alone names) and spill into `spill_dir` (which must exist); `keep_order`:
    whether a query's rows must come in the order of the streams it reads; `zone`: the time
    zone it gives datetimes in (never the machine's)."""
    connection = duckdb.connect(
        ":memory:",
        config={
            "memory_limit": f"{budget.memory_bytes}B",
            "threads": threads_within(budget),
            "temp_directory": str(spill_dir),
            "preserve_insertion_order": keep_order,
            "autoinstall_known_extensions": False,
            "autoload_known_extensions": False,
            "allow_community_extensions": False,
            "allow_unsigned_extensions": False,
        },
    )
    try:
        paths = [str(path) for path in (*reads, *writes)]
        connection.execute(f"SET TimeZone = {string_literal(zone)}")  # a zone name scans checked
        _lock(connection, paths, str(spill_dir).rstrip("/") + "/")
    except BaseException:
        connection.close()
        raise
    return connection


def threads_within(budget: Budget) -> int:
    """The budget's threads, fewer when its memory cannot give each its least: at least one."""
    return max(1, min(budget.threads, budget.memory_bytes // MEMORY_PER_THREAD))


def _lock(connection, paths: list[str], spill: str) -> None:
    # SET takes no parameters; these values are server paths, never text a user wrote
    connection.execute(f"SET allowed_paths = {_list_literal(paths)}")
    connection.execute(f"SET allowed_directories = {_list_literal([spill])}")
    connection.execute("SET enable_progress_bar = true")  # for query_progress(); never printed
    connection.execute("SET enable_progress_bar_print = false")
    # each operator's rows, for the row counts of the segment's nodes (counts.py)
    connection.execute("SET enable_profiling = 'no_output'")
    connection.execute(f"SET tracked_metrics = {_list_literal(PROFILED)}")
    connection.execute("SET enable_external_access = false")
    connection.execute("SET lock_configuration = true")


def _list_literal(values: list[str]) -> str:
    return "[" + ", ".join(string_literal(value) for value in values) + "]"
