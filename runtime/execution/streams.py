"""Which inputs hand their rows on in a spill file, batch by batch, instead of as a frame.

An input whose operator `spills` (JSON Lines, a SQL query) and whose rows only DuckDB
segments read gets a file in the run's scratch folder (`NodeContext.spill_path`): it writes
each batch it reads there and the segment scans the file (runtime/tables/spilled.py), so
neither holds the whole input. A node a caller retains, a preview's (a row limit or a head)
and one that anything on pandas reads build their frame as before. The files go when the run
ends, after the result store has copied those it keeps.
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
    """The spill file of each node that may hand its rows on in one (see the module)."""
    if row_limit is not None:
        return {}
    readers: dict[str, list] = {}
    for task in tasks.nodes.values():
        for sources in task.inputs.values():
            for node_id, _ in sources:
                readers.setdefault(node_id, []).append(task.operator)
    return {
        node_id: scratch / FOLDER / f"{node_id}.parquet"
        for node_id in tasks.order
        if _may_spill(plan, tasks, node_id, retain, readers.get(node_id, []))
    }


def _may_spill(plan: Plan, tasks: Tasks, node_id: str, retain: set[str], readers: list) -> bool:
    node = tasks.nodes[node_id]
    if node_id not in plan.nodes or not node.operator.spills or node_id in retain:
        return False
    if node.row_limit is not None or node.head is not None or not readers:
        return False
    return all(
        isinstance(reader, SegmentOperator) and reader.segment.backend == "duckdb"
        for reader in readers
    )


def remove_spill_files(scratch: Path) -> None:
    """Remove a run's spill files (at its end)."""
    shutil.rmtree(scratch / FOLDER, ignore_errors=True)
