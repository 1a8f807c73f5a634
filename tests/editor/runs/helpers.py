"""Helpers for tests of runs through the API, wherever they execute (a local process, a Dask
cluster): pipelines to start, and waiting for what the database records of them."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import pandas as pd

from editor.models import NodeRun, Run
from tests.editor.conftest import post_json, wait_for_run


def chain(*nodes: tuple[str, str, dict], backend: str = "pandas", **config) -> dict:
    """A pipeline of `(id, operator, params)` nodes, each feeding the next; `config`: more of
    its config (retries, say)."""
    return {
        "format": "pipewright.pipeline", "version": 1, "name": "chain",
        "config": {"backend": backend, **config},
        "nodes": [{"id": id_, "operator": op, "params": params} for id_, op, params in nodes],
        "edges": [{"source": a[0], "target": b[0]} for a, b in itertools.pairwise(nodes)],
    }  # fmt: skip


def start(client, document: dict) -> int:
    pipeline = post_json(client, "/api/pipelines", document)
    assert pipeline.status_code == 201, pipeline.content
    run = post_json(client, f"/api/pipelines/{pipeline.json()['id']}/runs", {})
    assert run.status_code == 202, run.content
    return run.json()["id"]


def nodes_of(run_id: int) -> dict[str, NodeRun]:
    return {node.node_id: node for node in NodeRun.objects.filter(run_id=run_id)}


def wait_until(condition, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not within the time allowed"
        time.sleep(0.02)


def wait_for_node(run_id: int, node: str, status: str) -> None:
    wait_until(lambda: NodeRun.objects.get(run_id=run_id, node_id=node).status == status)


def files_under(folder: Path) -> list[str]:
    """Every file under `folder`, temporaries included."""
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file())


def without_timing(events: list[dict]) -> list[dict]:
    """The events without what the clock decides (times and durations)."""
    timing = {"time", "duration_s", "started", "finished"}
    plain = []
    for event in events:
        event = {key: value for key, value in event.items() if key not in timing}
        if "metrics" in event:
            event["metrics"] = {k: v for k, v in event["metrics"].items() if k not in timing}
        plain.append(event)
    return plain


WAITING = chain(
    ("read", "csv_input", {"path": "people.csv"}),
    ("wait", "pause", {"seconds": 60}),
    ("write", "csv_output", {"path": "out/people.csv"}),
)
"""A run whose node `wait` runs until it is cancelled, or its worker lost."""


def run_over_a_folder(client, data_root, files: int = 3) -> tuple[Run, dict]:
    """A run of a chain over a folder of `files` Parquet files; the run and its node rows."""
    (data_root / "sales").mkdir()
    for index in range(files):
        part = pd.DataFrame({"region": ["n", "s", "n"], "amount": [index, 2, 3]})
        part.to_parquet(data_root / "sales" / f"part-{index}.parquet")
    run_id = start(client, chain(
        ("sales", "parquet_input", {"path": "sales"}),
        ("some", "filter", {"condition": "amount > 0"}),
        ("by_region", "aggregate", {"group_by": ["region"], "aggregations": [
            {"column": "amount", "function": "sum", "name": "amount"}]}),
        ("write", "csv_output", {"path": "out/by_region.csv"}),
    ))  # fmt: skip
    return wait_for_run(run_id), nodes_of(run_id)


def waiting_note(cluster) -> str:
    """What a run waiting for a worker of `cluster` records as its error meanwhile."""
    return f"waiting for a Dask worker: the cluster at {cluster.scheduler_address} has none"
