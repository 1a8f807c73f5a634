"""The editor's event sink: runtime events become `Run`, `NodeRun` and `RunLog` rows, in
batches (the log lines through `editor.run_logs`, each attempt's start and end through
`editor.attempt_spans`).

The executor calls sinks under its event lock, so this sink only appends to a queue; a writer
thread applies what arrived every `FLUSH_INTERVAL_S` in one transaction (a thousand progress
events cost one write per node, not a thousand) and then hands the batch to `after_write`
(the live view's broadcast) with the seq it follows, so that listeners never hear of a state
the database lacks.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import defaultdict
from collections.abc import Callable

from django.db import close_old_connections, connection, transaction
from django.utils import timezone

from editor import attempt_spans, input_positions, node_run_rows, run_logs
from editor.models import NodeRun, Run
from runtime.events import Event
from runtime.statuses import RunStatus

FLUSH_INTERVAL_S = 0.02
"""Short, so that live views lag by little; still one write per node per interval."""
MAX_BATCH = 5000
SO_FAR = {"rows": "rows_so_far", "share": "share_done"}
"""A `node_progress` field, and the metric a running node keeps it in."""

log = logging.getLogger(__name__)


class RunRecorder:
    """Event sink persisting one run's events; `close()` writes what is left."""

    def __init__(self, run_id: int, after_write: Callable[[int, list[Event]], None] | None = None):
        self.run_id = run_id
        self.after_write = after_write
        self._written_seq = 0
        self._log_lines = 0
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._closed = object()
        self._writer = threading.Thread(
            target=self._write_loop, name=f"pipewright-recorder-{run_id}", daemon=True
        )
        self._writer.start()

    def __call__(self, event: Event) -> None:
        self._queue.put((time.monotonic(), event))

    def close(self) -> None:
        """Flush every event received so far and stop the writer."""
        self._queue.put((time.monotonic(), self._closed))
        self._writer.join()

    def _write_loop(self) -> None:
        try:
            done = False
            while not done:
                batch, done = self._next_batch()
                if batch:
                    self._apply(batch)
        finally:
            connection.close()

    def _next_batch(self) -> tuple[list[Event], bool]:
        """The events arriving within one flush interval; True once `close` was called."""
        arrived, first = self._queue.get()
        if first is self._closed:
            return [], True
        batch = [first]
        # From the first event's arrival, not from now: an event that queued up while the
        # previous batch was being written is not held back another whole interval.
        deadline = arrived + FLUSH_INTERVAL_S
        while len(batch) < MAX_BATCH:
            try:
                _, item = self._queue.get(timeout=max(deadline - time.monotonic(), 0.0))
            except queue.Empty:
                break
            if item is self._closed:
                return batch, True
            batch.append(item)
        return batch, False

    def _apply(self, events: list[Event]) -> None:
        close_old_connections()
        try:
            with transaction.atomic():
                self._write(events)
        except Exception:
            log.exception("could not record events of run %s", self.run_id)
            return
        after_seq, self._written_seq = self._written_seq, events[-1]["seq"]
        if self.after_write is not None:
            self.after_write(after_seq, events)

    def _write(self, events: list[Event]) -> None:
        changes: dict[str, dict] = defaultdict(dict)
        for event in events:
            node = event.get("node")
            if event["type"] == "node_status":
                change = changes[node]
                change.setdefault("statuses", []).append(event)
                change["status"] = event["status"]
                change["attempts"] = event.get("attempt", 0)
                if "metrics" in event:
                    change["metrics"] = event["metrics"]
                if event.get("error"):
                    change["error"] = event["error"]
                    change["traceback"] = event.get("traceback") or ""
            elif event["type"] == "node_progress":
                progress = changes[node].setdefault("progress", {})
                progress.update({SO_FAR[key]: event[key] for key in SO_FAR if key in event})
        # Write before reading: SQLite then takes the write lock first, waiting for other
        # writers; upgrading a read lock instead fails at once ("database is locked") when
        # another connection is waiting to commit, and the batch would be lost.
        run = Run.objects.filter(pk=self.run_id)
        run.update(last_seq=events[-1]["seq"])
        rows = NodeRun.objects.filter(run_id=self.run_id, node_id__in=set(changes))
        states = []
        for pk, node_id, *values in rows.values_list("pk", "node_id", *node_run_rows.FIELDS):
            row = dict(zip(node_run_rows.FIELDS, values, strict=True))
            change = changes[node_id]
            progress = change.pop("progress", None)
            for event in change.pop("statuses", ()):
                row["attempt_spans"] = attempt_spans.with_event(row["attempt_spans"], event)
            row.update(change)
            if progress and "metrics" not in change:
                row["metrics"] = {**row["metrics"], **progress}
            states.append((pk, row))
        node_run_rows.update(states)
        finished = [event for event in events if event["type"] == "run_finished"]
        if finished:  # written with the event, so that no listener sees a stale status
            outcome = finished[-1]
            run.update(
                status=outcome["status"], finished_at=timezone.now(), error=outcome.get("error", "")
            )
            if outcome["status"] == RunStatus.SUCCEEDED:  # a failed run re-reads the same rows
                input_positions.advance(self.run_id)
        self._log_lines = run_logs.append(self.run_id, events, self._log_lines)
