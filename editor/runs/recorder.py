"""The editor's event sink: runtime events become `Run`, `NodeRun` and `RunLog` rows, in
batches (the log lines through `editor.runs.logs`, each attempt's start and end through
`editor.runs.attempt_spans`).

The executor calls sinks under its event lock, so this sink only appends to a queue; a writer
thread applies what arrived every `FLUSH_INTERVAL_S` in one transaction (a thousand progress
events cost one write per node, not a thousand) and then hands the batch to `after_write`
(the live view's broadcast) with the seq it follows, so that listeners never hear of a state
the database lacks.

A batch the database does not take (it cannot be reached, or SQLite stays locked) is kept,
with everything that arrives meanwhile (`editor.runs.unwritten_events`: in memory, then on disk),
and tried again with backoff until the database is back; nothing is dropped. Writes are
idempotent by `seq`: a batch applies only its events after the run's `last_seq`, read with the
run row locked, so a batch that committed though its writer heard an error is never applied
twice (no log line twice, no node row going back). The run's end (`close`) is written after
every event it had.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from functools import partial

from django.db import close_old_connections, connection, transaction
from django.utils import timezone

from editor.database.outage import UNAVAILABLE, Backoff, until_written
from editor.models import NodeRun, Run
from editor.runs import attempt_spans, logs, node_rows, positions
from editor.runs.unwritten_events import UnwrittenEvents
from runtime import Event, RunStatus

FLUSH_INTERVAL_S = 0.02
"""Short, so that live views lag by little; still one write per node per interval."""
MAX_BATCH = 5000
SO_FAR = {"rows": "rows_so_far", "share": "share_done", "iterations": "iterations_done"}
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
        self._unwritten = UnwrittenEvents(run_id)
        self._ending: tuple[str, str] | None = None
        self._writer = threading.Thread(
            target=self._write_loop, name=f"pipewright-recorder-{run_id}", daemon=True
        )
        self._writer.start()

    def __call__(self, event: Event) -> None:
        self._queue.put((time.monotonic(), event))

    def close(self, status: str | None = None, error: str = "") -> None:
        """Write every event received so far, then (given a `status`) the run's end unless an
        event wrote one; return once the database has them all, however long that takes."""
        if status is not None:
            self._ending = (status, error)
        self._queue.put((time.monotonic(), self._closed))
        self._writer.join()

    def _write_loop(self) -> None:
        backoff = Backoff()
        closed = False
        try:
            while not closed or self._unwritten:
                if closed:
                    backoff.wait()
                else:
                    closed = self._gather(backoff.retry_at)
                if self._unwritten and backoff.due():
                    backoff.after(self._write_next())
            if self._ending is not None:
                until_written(partial(settle, self.run_id, *self._ending))
        finally:
            self._unwritten.discard()
            connection.close()

    def _gather(self, retry_at: float | None) -> bool:
        """Move what arrives into the unwritten events: everything until `retry_at` while the
        database is away; else, once one arrived (at once if some wait already), those within
        one flush interval of it. True once `close` was called."""
        if retry_at is not None:
            first_by: float | None = retry_at
        else:
            first_by = time.monotonic() if self._unwritten else None
        try:
            arrived, item = self._queue.get(
                timeout=None if first_by is None else max(first_by - time.monotonic(), 0.0)
            )
        except queue.Empty:
            return False
        # From the first event's arrival, not from now: an event that queued up while the
        # previous batch was being written is not held back another whole interval.
        deadline = max(arrived + FLUSH_INTERVAL_S, retry_at or 0.0)
        while item is not self._closed:
            self._unwritten.add(item)
            if retry_at is None and len(self._unwritten) >= MAX_BATCH:
                return False
            try:
                _, item = self._queue.get(timeout=max(deadline - time.monotonic(), 0.0))
            except queue.Empty:
                return False
        return True

    def _write_next(self) -> bool:
        """Write the oldest unwritten events (up to `MAX_BATCH`); False if the database did
        not take them (they stay, to be tried again)."""
        events = self._unwritten.first(MAX_BATCH)
        close_old_connections()
        try:
            with transaction.atomic():
                self._write(events)
        except UNAVAILABLE as error:
            log.warning(
                "run %s: %d events wait for the database: %s", self.run_id, len(self._unwritten),
                error,
            )  # fmt: skip
            return False
        except Exception:  # a bug, not an outage: trying again would fail the same way
            log.exception("could not record events of run %s", self.run_id)
            self._unwritten.drop(len(events))
            self._written_seq = events[-1]["seq"]  # the next frame tells watchers of the gap
            return True
        self._unwritten.drop(len(events))
        after_seq, self._written_seq = self._written_seq, events[-1]["seq"]
        if self.after_write is not None:
            self.after_write(after_seq, events)
        return True

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
        run = Run.objects.filter(pk=self.run_id)
        # The run row locked (SQLite's transactions take the write lock as they begin): what
        # `last_seq` says is written stays so until this commits, and a live view's snapshot
        # never reads between the two (`editor.live.snapshots`).
        written = run.select_for_update().values_list("last_seq", flat=True).first()
        if written is None:  # deleted with its pipeline
            return
        if events[0]["seq"] <= written:  # committed already, though its writer heard an error
            done = [event for event in events if event["seq"] <= written]
            self._log_lines = logs.kept_after(done, self._log_lines)
            events = events[len(done) :]
            if not events:
                return
        run.update(last_seq=events[-1]["seq"])
        rows = NodeRun.objects.filter(run_id=self.run_id, node_id__in=set(changes))
        states = []
        for pk, node_id, *values in rows.values_list("pk", "node_id", *node_rows.FIELDS):
            row = dict(zip(node_rows.FIELDS, values, strict=True))
            change = changes[node_id]
            progress = change.pop("progress", None)
            for event in change.pop("statuses", ()):
                row["attempt_spans"] = attempt_spans.with_event(row["attempt_spans"], event)
            row.update(change)
            if progress and "metrics" not in change:
                row["metrics"] = {**row["metrics"], **progress}
            states.append((pk, row))
        node_rows.update(states)
        finished = [event for event in events if event["type"] == "run_finished"]
        if finished:  # written with the event, so that no listener sees a stale status
            outcome = finished[-1]
            run.update(
                status=outcome["status"], finished_at=timezone.now(), error=outcome.get("error", "")
            )
            if outcome["status"] == RunStatus.SUCCEEDED:  # a failed run re-reads the same rows
                positions.advance(self.run_id)
        self._log_lines = logs.append(self.run_id, events, self._log_lines)


def settle(run_id: int, status: str, error: str) -> None:
    """Write a run's end, unless it already has one."""
    Run.objects.filter(pk=run_id, status__in=RunStatus.ACTIVE).update(
        status=status, finished_at=timezone.now(), error=error
    )
