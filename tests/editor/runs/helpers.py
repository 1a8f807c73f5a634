"""Helpers for tests of runs through the API, wherever they execute (a local process, a Dask
cluster): pipelines to start, and waiting for what the database records of them."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

from editor.models import NodeRun
from tests.editor.conftest import post_json


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
