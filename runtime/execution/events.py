"""Run events: every state change, numbered, timed and handed to sinks.

An event is a plain JSON-serialisable dict: `run_id`, `seq` (strictly increasing within a run),
`time` (ISO-8601 UTC), `type`, and the type's fields, the node always in `node`:

- `run_started`: `name`, `nodes` (ids in topological order)
- `node_status`: `node`, `status` (a `NodeStatus`), `attempt`; `metrics` once the status is
  final, `error` / `traceback` when it failed, `delay_s` when retrying, `reason` when the
  status is not the node's own doing ("downstream of a failure of read")
- `node_progress`: `node` and at least one of `rows` (so far) and `share` (of the work done,
  0 to 1, an estimate: the members of a DuckDB segment share the segment's); a loop's also
  `iterations`, [done, total]
- `node_log`: `node`, `level`, `message`; `node` None for a line of the run's own (its
  supervisor's: a run started again after its Dask worker was lost)
- `run_finished`: `status` (a `RunStatus`), `duration_s`, `totals` (`nodes` by status,
  `rows_read`, `rows_written`); `error` when a node failed: the first failure, "node: message"

A sink is any callable taking one event. The emitter calls sinks under a lock, so each sink
sees events in `seq` order even though nodes run on many threads. The runtime never knows
who listens: the editor's sink persists and broadcasts.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

EVENT_TYPES = ("run_started", "node_status", "node_progress", "node_log", "run_finished")

Event = dict
EventSink = Callable[[Event], None]


def now_iso() -> str:
    """The current UTC time as ISO-8601 with microseconds."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


class Emitter:
    """Numbers events of one run and passes them to its sinks, one at a time."""

    def __init__(self, sinks: Iterable[EventSink] = (), run_id: str | int | None = None):
        self.run_id = run_id if run_id is not None else uuid.uuid4().hex
        self._sinks = list(sinks)
        self._seq = 0
        self._lock = threading.Lock()

    def emit(self, event_type: str, /, **fields) -> Event:
        """Record one event; fields are keyword-only so new ones can be added freely."""
        with self._lock:
            self._seq += 1
            event = {"run_id": self.run_id, "seq": self._seq, "time": now_iso(), "type": event_type}
            event.update(fields)
            for sink in self._sinks:
                sink(event)
            return event


class ListSink:
    """Keeps every event in memory (tests, previews)."""

    def __init__(self):
        self.events: list[Event] = []

    def __call__(self, event: Event) -> None:
        self.events.append(event)

    def of_type(self, event_type: str) -> list[Event]:
        return [event for event in self.events if event["type"] == event_type]


class JsonLinesSink:
    """Writes one JSON object per line, flushed as it goes so a crash keeps what happened."""

    def __init__(self, target: str | Path | IO[str]):
        if isinstance(target, str | Path):
            self._file = open(target, "w", encoding="utf-8")  # noqa: SIM115 - closed by close()
            self._owned = True
        else:
            self._file = target
            self._owned = False

    def __call__(self, event: Event) -> None:
        self._file.write(json.dumps(event, ensure_ascii=False, default=str) + "\n")
        self._file.flush()

    def close(self) -> None:
        if self._owned:
            self._file.close()

    def __enter__(self) -> JsonLinesSink:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()


def read_json_lines(path: str | Path) -> list[Event]:
    """The events a `JsonLinesSink` wrote."""
    with open(path, encoding="utf-8") as file:
        return [json.loads(line) for line in file if line.strip()]
