"""Speaking the wire protocol to a run's or a job's process, as its supervisor does: the
messages it is sent (`order` of a run, `job`, of a `pipeline` chain) and those it sends back
(`converse`, `events_of`)."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

from runtime.budget import Budget
from runtime.io.paths import FileArea
from runtime.worker.wire import JobOrder, RunOrder
from runtime.worker.zygote import RunProcess


def pipeline(*nodes: dict, config: dict | None = None) -> dict:
    """A chain of `nodes`, each feeding the next."""
    edges = [{"source": a["id"], "target": b["id"]} for a, b in itertools.pairwise(nodes)]
    return {"format": "pipewright.pipeline", "version": 1, "name": "chain",
            "config": config or {}, "nodes": list(nodes), "edges": edges}  # fmt: skip


def order(document: dict, root: Path, *, run_id=1, extra_path=(), connections=None) -> dict:
    """The `start` message of a run of `document` in the folder `root`."""
    return RunOrder(
        run_id=run_id, document=document, parameters={}, area=FileArea(root),
        connections=connections or {}, budget=Budget(memory_bytes=2**30, threads=1),
        sys_path=[*map(str, extra_path), *sys.path],
    ).to_message()  # fmt: skip


def job(name: str, document: dict, root: Path, *, extra_path=(), connections=None, **options):
    """The `job` message of job `name` on `document` in the folder `root`."""
    return JobOrder(
        job=name, document=document, parameters={}, area=FileArea(root),
        connections=connections or {}, budget=Budget(memory_bytes=2**30, threads=1),
        sys_path=[*map(str, extra_path), *sys.path], options=options,
    ).to_message()  # fmt: skip


def converse(process: RunProcess, *, allow_commits: bool = True) -> list[dict]:
    """Every message of the run's process until it ends, its commits answered."""
    messages = []
    while True:
        try:
            message = process.link.receive(30)
        except EOFError:
            return messages
        assert message is not None, "the run's process said nothing for 30 s"
        messages.append(message)
        if message["kind"] == "may_commit":
            process.link.send("commit", id=message["id"], allowed=allow_commits)


def events_of(messages: list[dict]) -> list[dict]:
    batches = [message["events"] for message in messages if message["kind"] == "events"]
    return [event for batch in batches for event in batch]
