"""The choices past figures lead to: pure functions, each returning the figure it read.

The fixed rule (runtime/plan/fusion.py) judges a pipeline by the bytes of the files it reads:
below 32 MiB, pandas runs everything. That misjudges a small file that a join multiplies
into millions of rows, and a large one filtered early. Measured figures judge each segment
by what its nodes really made: DuckDB when one of them made `DUCKDB_ROWS` rows or
`DUCKDB_BYTES` bytes, pandas (which starts sooner) when none did.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from runtime.budget import MEMORY_PER_THREAD, Budget
from runtime.tuning.figures import NodeFigures, size_text

DUCKDB_ROWS = 1_000_000
DUCKDB_BYTES = 32 << 20
"""A segment any of whose nodes made this many rows or bytes runs on DuckDB."""
ROW_GROUP = 122_880
"""DuckDB shares a query's work between threads by groups of this many rows: fewer rows
keep one thread busy, and more threads only cost their start."""
MIN_SEGMENT_MEMORY = 256 << 20
MEMORY_MARGIN = 4
"""A segment's memory limit is this many times the largest frame its nodes made (hash tables
and sort runs beside the rows), at least `MIN_SEGMENT_MEMORY` and what its threads need (so
that the limit never costs a thread), at most the run's budget."""
WORK_MARGIN = 2
"""A node needs its frame and about as much again for the work on it: `max_concurrency` fits
that many times the largest frame into the run's memory."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One choice and the past figure it came from, as `explain` says them."""

    what: str
    because: str

    def text(self) -> str:
        return f"{self.what}: {self.because}"


@dataclass(frozen=True, slots=True)
class SegmentLimits:
    """What a DuckDB segment may use (None: the run's budget)."""

    threads: int | None = None
    memory_bytes: int | None = None


def figure_text(figures: NodeFigures) -> str:
    """`last 3 runs made 48,000,000 rows / 1.9 GiB at node orders`."""
    runs = "the last run" if figures.runs == 1 else f"the last {figures.runs} runs"
    return (
        f"{runs} made {figures.rows:,} rows / {size_text(figures.bytes)} at node {figures.node}"
        + (" (median)" if figures.runs > 1 else "")
    )


def largest(members: Iterable[str], measured: Mapping[str, NodeFigures]) -> NodeFigures | None:
    """The measured member with the most rows (then bytes); None when none was measured."""
    found = [measured[member] for member in members if member in measured]
    return max(found, key=lambda figures: (figures.rows, figures.bytes), default=None)


def heaviest(members: Iterable[str], measured: Mapping[str, NodeFigures]) -> NodeFigures | None:
    """The measured member that made the most bytes."""
    found = [measured[member] for member in members if member in measured]
    return max(found, key=lambda figures: figures.bytes, default=None)


def segment_backend(
    members: Iterable[str], measured: Mapping[str, NodeFigures], files_bytes: int = 0
) -> tuple[str, str] | None:
    """`duckdb` or `pandas` for a segment whose members read `files_bytes` from files, and
    why: DuckDB on any large figure, pandas only when every member was measured small; None
    otherwise."""
    members = list(members)
    most_rows, most_bytes = largest(members, measured), heaviest(members, measured)
    if most_rows is None or most_bytes is None:
        return None
    if most_rows.rows >= DUCKDB_ROWS:
        return "duckdb", figure_text(most_rows)
    if most_bytes.bytes >= DUCKDB_BYTES:
        return "duckdb", figure_text(most_bytes)
    if files_bytes >= DUCKDB_BYTES:  # a large file read to few rows: DuckDB scans it sooner
        return "duckdb", f"its files hold {size_text(files_bytes)}; {figure_text(most_rows)}"
    if not all(member in measured for member in members):
        return None  # an unmeasured node may be the large one: the fixed rule judges
    return "pandas", f"{figure_text(most_rows)}: small enough for pandas, which starts sooner"


def worth_partitioning(
    node_id: str, measured: Mapping[str, NodeFigures]
) -> tuple[bool, str] | None:
    """Whether the chain an input of several files starts is worth a partition per file on a
    Dask cluster, and why; None without its figures. Shipping tasks to workers costs more
    than reading a few rows in the run's process."""
    figures = measured.get(node_id)
    if figures is None:
        return None
    if figures.rows >= DUCKDB_ROWS or figures.bytes >= DUCKDB_BYTES:
        return True, figure_text(figures)
    return False, f"{figure_text(figures)}: sooner read in the run's process than sent out"


def segment_limits(
    members: Iterable[str], measured: Mapping[str, NodeFigures], budget: Budget
) -> tuple[SegmentLimits, list[tuple[str, str]]]:
    """A DuckDB segment's threads and memory limit from its largest figures, each with why;
    none unless every member's rows were measured, and no memory limit unless every member's
    frame was (a member that only ran inside DuckDB made none to measure, and a limit read
    from its neighbours' small frames would make its join spill)."""
    members = list(members)
    most_rows, most_bytes = largest(members, measured), heaviest(members, measured)
    if most_rows is None or most_bytes is None or not all(m in measured for m in members):
        return SegmentLimits(), []
    threads, memory, why = None, None, []
    if most_rows.rows < ROW_GROUP and budget.threads > 1:
        threads = 1
        why.append(("1 thread", f"{figure_text(most_rows)}, under one {ROW_GROUP:,}-row group"))
    floor = max(MIN_SEGMENT_MEMORY, (threads or budget.threads) * MEMORY_PER_THREAD)
    wanted = max(floor, MEMORY_MARGIN * most_bytes.bytes)
    if wanted < budget.memory_bytes and all(measured[member].sized for member in members):
        memory = wanted
        why.append(
            (
                f"memory limit {size_text(wanted)}",
                f"{figure_text(most_bytes)}; {MEMORY_MARGIN} times that, at least "
                f"{size_text(floor)} for its threads, of the run's "
                f"{size_text(budget.memory_bytes)}",
            )
        )
    return SegmentLimits(threads, memory), why


def concurrency(
    measured: Mapping[str, NodeFigures], budget: Budget, cores: int
) -> tuple[int, str] | None:
    """How many nodes may run at once so that their frames fit the run's memory, and why;
    None without figures."""
    most_bytes = heaviest(measured.keys(), measured)
    if most_bytes is None:
        return None
    fits = budget.memory_bytes // max(1, WORK_MARGIN * most_bytes.bytes)
    chosen = max(1, min(cores, fits))
    cores_text = f": one per core ({cores})" if chosen == cores else ""
    return chosen, (
        f"{figure_text(most_bytes)}; at {WORK_MARGIN} times that each, the run's "
        f"{size_text(budget.memory_bytes)} holds {fits:,} at once{cores_text}"
    )
