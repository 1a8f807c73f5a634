"""What a supervisor knows of a run from the events it relayed, and the events that end the
run when its process could not: it was killed, it crashed, it was stopped after the grace
a cancel gives it, or the Dask worker executing it was lost.

The ending continues the run's own numbering, so a listener sees one run whose last events
come from the supervisor: every node not final yet gets its final status (a node that was
running fails with the reason when the process died, or is interrupted when the run is; any
other is cancelled), then `run_finished` with the totals `runtime.execution.results.outcome`
computes from what the nodes did. A line of the supervisor's own in the run's log (`log`) is
numbered the same way.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from runtime.execution.events import Event, now_iso
from runtime.execution.results import NodeResult, outcome
from runtime.execution.statuses import NodeStatus, RunStatus

_STOPPED = {RunStatus.FAILED: NodeStatus.FAILED, RunStatus.INTERRUPTED: NodeStatus.INTERRUPTED}
"""What a node that was running becomes when the run ends so; any other node is cancelled."""
_FIGURES = ("started", "finished", "duration_s", "attempts", "rows_in", "rows_out", "bytes_out")
"""The fields of a final status's `metrics` that are `NodeResult` fields; the rest is extra."""


class Trail:
    """The state of one run's nodes per the events seen so far, numbered as they were."""

    def __init__(self, run_id: int | str, kinds: Mapping[str, str]):
        """`kinds`: the kind of each node of the run (input, process, output)."""
        self.run_id = run_id
        self.kinds = dict(kinds)
        self.seq = 0
        self.results = {node_id: NodeResult(node_id) for node_id in kinds}
        self.finished: Event | None = None
        """The run's own `run_finished` event, once seen."""
        self._began = time.monotonic()
        self._running_since: dict[str, float] = {}

    def saw(self, event: Event) -> None:
        """Take one relayed event into account."""
        self.seq = event["seq"]
        if event["type"] == "run_finished":
            self.finished = event
        if event["type"] != "node_status":
            return
        result = self.results.setdefault(event["node"], NodeResult(event["node"]))
        result.status = event["status"]
        result.attempts = event.get("attempt", result.attempts)
        if event["status"] == NodeStatus.RUNNING and event["node"] not in self._running_since:
            self._running_since[event["node"]] = time.monotonic()
            result.started = event["time"]
        metrics = dict(event.get("metrics", {}))
        for name in _FIGURES:
            if name in metrics:
                setattr(result, name, metrics.pop(name))
        result.extra.update(metrics)

    def all_succeeded(self) -> bool:
        """Whether every node of the run succeeded (an output's success is after its commit)."""
        return bool(self.results) and all(
            result.status == NodeStatus.SUCCEEDED for result in self.results.values()
        )

    def running(self) -> list[str]:
        """The nodes that were running (or waiting to retry) per the last events."""
        working = (NodeStatus.RUNNING, NodeStatus.RETRYING)
        return [node_id for node_id, result in self.results.items() if result.status in working]

    def log(self, level: str, message: str) -> Event:
        """A line of the run's log that is the supervisor's, not a node's."""
        return self._event("node_log", node=None, level=level, message=message)

    def ending(self, status: RunStatus, error: str) -> list[Event]:
        """The events that end the run as `status`: nodes not final yet fail with `error` if
        they were running and the run failed, or are interrupted if it was; the others are
        cancelled, `error` the reason."""
        events = []
        running = set(self.running())
        stopped = _STOPPED.get(status)
        for node_id, result in self.results.items():
            if result.status in NodeStatus.FINAL:
                continue
            failed = stopped == NodeStatus.FAILED and node_id in running
            result.status = stopped if stopped and node_id in running else NodeStatus.CANCELLED
            result.finished = now_iso()
            if node_id in self._running_since:
                result.duration_s = round(time.monotonic() - self._running_since[node_id], 6)
            told = {"error": error} if failed else {"reason": error}
            event = self._event(
                "node_status", node=node_id, status=result.status, attempt=result.attempts,
                metrics=result.metrics(), **told,
            )  # fmt: skip
            events.append(event)
        totals = outcome(self.results.values(), self.kinds, cancelled=False).totals
        # A run that succeeded all the same keeps why it was ended here (not a failure).
        failure = {"error": error} if stopped or status == RunStatus.SUCCEEDED else {}
        duration = round(time.monotonic() - self._began, 6)
        finished = self._event(
            "run_finished", status=status, duration_s=duration, totals=totals, **failure
        )
        return [*events, finished]

    def _event(self, event_type: str, **fields) -> Event:
        self.seq += 1
        return {"run_id": self.run_id, "seq": self.seq, "time": now_iso(), "type": event_type,
                **fields}  # fmt: skip
