"""Runs on a Dask cluster against runs in processes of this machine: start and cancel.

    python bench/dask_runs.py start [--repeat 30]
    python bench/dask_runs.py cancel [--rows 2000000]

The cluster is a `LocalCluster` of two worker processes (two threads each, the engine
preloaded) on this machine, its scheduler in this process: the figures are what the executor
costs, not what a network adds.

- start: the tiny run of bench/run_processes.py in a process forked here, and as a task on the
  cluster: until its `run_finished` event arrives, and until the call returned; median, p95.
- cancel: the pandas sort of bench/run_processes.py, and the same sort on DuckDB, cancelled
  0.3 s after the sort starts: click → every node final, and click → the work stopped (a
  process here: gone; on the cluster: no node thread left on the worker).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NODE_THREAD = "pipewright-node"


def on_dask(document: dict, area, run_id, cancel: threading.Event, sinks=()):
    """A run as a task on the cluster PIPEWRIGHT_DASK_SCHEDULER names."""
    from bench.run_processes import in_process
    from editor.runs.dask import DaskSupervisor

    on_dask = DaskSupervisor().supervise
    return in_process(document, area, run_id, cancel, sinks, supervise=on_dask)


def bench_start(repeat: int) -> None:
    from bench.run_processes import in_process, print_start

    print_start({"a process here": in_process, "a task on the cluster": on_dask}, repeat)


def bench_cancel(rows: int, cluster) -> None:
    from bench.run_processes import SORT, in_process, linked
    from bench.seed_etl import generate
    from bench.table import print_table
    from editor.runs import local
    from runtime.io.paths import FileArea

    area = FileArea(linked(generate(rows), "users.csv"))
    local.fork_server.start()
    duckdb_sort = {**SORT, "config": {"backend": "duckdb"}}
    table = []
    for name, document in (("pandas", SORT), ("duckdb", duckdb_sort)):
        for where, way in (("a process here", in_process), ("a task on the cluster", on_dask)):
            final, stopped = _cancel_once(way, document, area, cluster)
            table.append([name, where, f"{final * 1e3:.0f}", f"{stopped * 1e3:.0f}"])
    print(f"cancel of a sort of {rows:,} users by email, 0.3 s after it starts")
    print_table(["sort on", "runs as", "click → all final ms", "click → work stopped ms"], table)


def _cancel_once(way, document: dict, area, cluster) -> tuple[float, float]:
    from bench.run_processes import cancelled_run

    marks = cancelled_run(way, document, area, f"cancel-{time.monotonic_ns()}")
    if way is on_dask:  # the run's thread may go on after its task was cancelled
        while any(_node_threads(cluster).values()):
            time.sleep(0.005)
    return marks["final"] - marks["click"], time.perf_counter() - marks["click"]


def _node_threads(cluster) -> dict[str, int]:
    """Each worker's threads executing a node."""

    def count() -> int:
        return sum(thread.name == NODE_THREAD for thread in threading.enumerate())

    return cluster.run(count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("figure", choices=["start", "cancel"])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--rows", type=int, default=2_000_000)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pipewright.settings")
    import django
    from distributed import Client, LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=2, processes=True, dashboard_address=":0",
        preload=["runtime.worker.dask_task"],
    ) as cluster, Client(cluster, set_as_default=False) as observer:  # fmt: skip
        os.environ["PIPEWRIGHT_DASK_SCHEDULER"] = cluster.scheduler_address
        django.setup()
        if args.figure == "start":
            bench_start(args.repeat)
        else:
            bench_cancel(args.rows, observer)


if __name__ == "__main__":
    main()
