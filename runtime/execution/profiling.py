"""After a successful run: its figures added to the plan's profile (runtime/tuning/profiles.py).

Per node, under its shape (runtime/plan/tuned.py): rows out, bytes out, wall seconds, where it
ran, and the seconds and bytes its results took to store where the run timed them
(runtime/execution/recording.py); per run: wall and CPU seconds and the process's peak
resident memory (a run owns its process on the command line and in the editor's workers, so
that peak is the run's, start-up included). A node reused from the store, skipped or left out
made nothing and adds nothing; a node inside a DuckDB segment has its rows (the query's
profile counts them) but no bytes (no frame of it was made): `bytes` is null.
"""

from __future__ import annotations

import resource
from collections.abc import Mapping

from runtime.execution.events import now_iso
from runtime.execution.results import NodeResult
from runtime.execution.statuses import NodeStatus
from runtime.plan import Plan
from runtime.tuning.profiles import add_run


def record_profile(
    plan: Plan,
    results: Mapping[str, NodeResult],
    *,
    wall_s: float,
    cpu_s: float,
    writes: Mapping[str, Mapping[str, float]] | None = None,
) -> None:
    """Add a successful run of `plan` to its profile (nothing when it has none); `writes`:
    by node, where the run timed them, the seconds its operator took (`compute_s`) and the
    seconds and bytes its results took to store (`store_s`, `stored_bytes`)."""
    if plan.profile is None:
        return
    backend = {node_id: segment.backend for segment in plan.segments for node_id in segment.nodes}
    nodes = {
        plan.shapes[node_id]: {
            "rows": result.rows_out,
            "bytes": result.bytes_out,
            "seconds": result.duration_s,
            "backend": backend.get(node_id, "pandas"),
            **(writes or {}).get(node_id, {}),
        }
        for node_id, result in results.items()
        if result.status == NodeStatus.SUCCEEDED
        and node_id in plan.shapes  # not a node the passes made
        and result.rows_out is not None
        and not result.extra.get("cached")
    }
    run = {
        "finished": now_iso(),
        "wall_s": round(wall_s, 6),
        "cpu_s": round(cpu_s, 6),
        "peak_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,  # Linux: KiB
    }
    add_run(plan.profile, run, nodes, set(plan.shapes.values()))
