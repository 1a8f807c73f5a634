"""Which inputs hand their rows on in a spill file, batch by batch, instead of as a frame.

An input whose operator `spills` (JSON Lines, a SQL query) gets a file in the run's scratch
folder (`NodeContext.spill_path`) when every task reading its rows takes them batch by batch:
a DuckDB segment (which scans the file: runtime/tables/spilled.py), or a node on pandas that
`reads_batches` (row-wise operators and `validate`, run a batch at a time by
runtime/operators/batches.py; the CSV, Parquet and SQL writers, which append batch by batch).
It writes each batch it reads there, so no node holds the whole input. A node on pandas that
reads batches and spills too writes its outputs to files of its own when its readers take
batches in turn, else joins them into a frame. A node a caller retains, a preview's (a row
limit or a head) and one that a node needing every row reads build their frame as before. The
files go when the run ends, after the result store has copied those it keeps.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from runtime.execution.tasks import SegmentOperator, Tasks
from runtime.plan import Plan

FOLDER = "streams"
"""The folder of a run's spill files, in its scratch folder."""


def spill_paths(
    plan: Plan, tasks: Tasks, retain: set[str], row_limit: int | None, scratch: Path
) -> dict[str, Path]:
    """The spill file of each node that may hand its rows on in one (see the module): its
    `out` port's; a node of other ports names theirs after it (`port_file`)."""
    if row_limit is not None:
        return {}
    readers: dict[str, set[str]] = {}
    for task_id, task in tasks.nodes.items():
        for sources in task.inputs.values():
            for node_id, _ in sources:
                readers.setdefault(node_id, set()).add(task_id)
    spilling: set[str] = set()
    for node_id in reversed(tasks.order):  # readers first: a node may spill into a spilling one
        if _may_spill(plan, tasks, node_id, retain) and all(
            reader in spilling or _takes_spilled(tasks.nodes[reader])
            for reader in readers.get(node_id, ())
        ):
            spilling.add(node_id)
    return {node_id: scratch / FOLDER / f"{node_id}.parquet" for node_id in spilling}


def _may_spill(plan: Plan, tasks: Tasks, node_id: str, retain: set[str]) -> bool:
    node = tasks.nodes[node_id]
    if node_id not in plan.nodes or not node.operator.spills(node.params) or node_id in retain:
        return False
    read = any(plan.consumers[(node_id, port.name)] for port in node.ports.outputs)
    return read and node.row_limit is None and node.head is None


def _takes_spilled(task) -> bool:
    """Whether a task reads spilled rows without building their frame: a DuckDB segment scans
    the file, a node that `reads_batches` takes a batch at a time."""
    if isinstance(task.operator, SegmentOperator):
        return task.operator.segment.backend == "duckdb"
    return task.operator.reads_batches(task.params)


def remove_spill_files(scratch: Path) -> None:
    """Remove a run's spill files (at its end)."""
    shutil.rmtree(scratch / FOLDER, ignore_errors=True)
