"""The executor: runs a plan's nodes on a thread pool, as soon as their inputs are ready.

A small scheduler on `graphlib.TopologicalSorter` (prepare / get_ready / done) decides what
runs; node work runs on worker threads, at most `max_concurrency` at a time. A worker that
finishes a node schedules its successors and runs the next one itself, so a chain of cheap
nodes costs no thread hand-offs; the calling thread watches deadlines and the cancel signal. It
retries with exponential backoff, enforces per-attempt deadlines, honours a cancel signal,
stops or continues after a failure as configured, and frees each intermediate DataFrame as
soon as its last consumer has taken it. Every state change goes out as an event.

Threads cannot be killed: a node that times out or is cancelled is told to stop, its result
is discarded when it returns, and `NodeContext.commit` keeps it from committing side effects
after the decision. Such a thread no longer counts against `max_concurrency`. An operator's
`open` and `close` (runtime/operators/lifecycle.py) wrap a node's attempts: a stopped attempt's node
closes when its thread returns, and the run's end waits for that, at most `CLOSE_WAIT_S`.

Belongs here: when attempts start, retry, time out or stop, and the run's end. Does not belong
here: what one attempt does once it runs (runtime/execution/attempts.py) or the backoff between
attempts (runtime/execution/retries.py).
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable
from graphlib import TopologicalSorter
from pathlib import Path
from typing import TYPE_CHECKING

from runtime.errors import MemberError, NodeCancelled
from runtime.execution.attempts import (
    Attempt,
    keep_success,
    perform,
    referenced_by,
    segment_backend,
    take_inputs,
    take_references,
)
from runtime.execution.data_tests import ChecksFailed
from runtime.execution.events import Emitter, EventSink, now_iso
from runtime.execution.node_reports import NodeReports
from runtime.execution.output_store import OutputStore
from runtime.execution.profiling import record_profile
from runtime.execution.recording import Recorder
from runtime.execution.results import NodeResult, RunResult, describe, outcome, retryable
from runtime.execution.retries import Retries
from runtime.execution.statuses import NodeStatus, RunStatus
from runtime.execution.streams import remove_spill_files, spill_paths
from runtime.execution.tasks import tasks_of
from runtime.io.paths import FileArea
from runtime.operators.context import NodeContext
from runtime.operators.lifecycle import Lifecycles
from runtime.plan import Plan, PlannedNode
from runtime.plan.passes.projection import needed_columns

if TYPE_CHECKING:
    from runtime.budget import Budget
    from runtime.io.sql.connection_specs import Connections

POLL_S = 0.1
"""How often the scheduler looks at the cancel signal and the clock when nothing happens."""
CANCELLED_REASON = "the run was cancelled"


def execute(
    plan: Plan,
    *,
    sinks: Iterable[EventSink] = (),
    run_id: str | int | None = None,
    cancel_event: threading.Event | None = None,
    data_root: FileArea | str | Path = ".",
    connections: Connections | None = None,
    retain: Iterable[str] = (),
    row_limit: int | None = None,
    budget: Budget | None = None,
    may_commit: Callable[[], bool] | None = None,
) -> RunResult:
    """Run a plan to the end (or until cancelled) and return what happened.

    `retain` names nodes whose outputs are kept in `RunResult.outputs` (for previews);
    `row_limit` asks input operators to read no more rows than that; `budget` is what DuckDB
    segments may use (None: what the settings give a run); `may_commit` is asked before any
    output is made visible (`NodeContext.commit`; None: always allowed).
    """
    execution = _Execution(
        plan, Emitter(sinks, run_id), cancel_event or threading.Event(), FileArea.of(data_root),
        connections or {}, set(retain), row_limit, budget, may_commit,
    )  # fmt: skip
    return execution.run()


class _Execution:
    """One run's state. Every field below `lock` is read and written only while holding it."""

    def __init__(
        self, plan, emitter, cancel_event, data_root, connections, retain, row_limit, budget, gate
    ):
        self.plan = plan
        self.emitter = emitter
        self.cancel_event = cancel_event
        self.data_root = data_root
        self.connections = connections
        self.row_limit = row_limit
        self.may_commit = gate
        self.limit = plan.config.max_concurrency or plan.concurrency or os.cpu_count() or 1
        self.needed = needed_columns(plan, keep_all=retain)
        self.tasks = tasks_of(plan, retain, budget)
        self.scratch = data_root.scratch_folder / str(emitter.run_id)
        tested = plan.checked() | {node_id for node_id, _ in plan.referenced()}
        self.spill_paths = spill_paths(plan, self.tasks, retain | tested, row_limit, self.scratch)
        """The inputs that hand their rows on in a file, batch by batch (streams.py)."""
        self.lock = threading.Condition()
        self.results = {task: NodeResult(task) for task in self.tasks.order}
        """Each task's result: a node's own, or a segment's, which its members copy."""
        self.reports = NodeReports(plan, self.tasks, self.results, emitter.emit)
        self.recorder = Recorder(plan, data_root) if plan.cache is not None else None
        self.store = OutputStore(plan.consumers + self._referenced(), retain)
        self.failed_upstream: dict[str, str] = {}
        """For a skipped node, the failed node it is downstream of."""
        self.queued: deque[str] = deque()
        self.retries = Retries(plan.config.retry_delay_s)
        self.running: dict[str, Attempt] = {}
        self.started_at: dict[str, float] = {}
        self.workers = 0
        self.stopping: str | None = None
        """Once nothing new may start: why (the run was cancelled, a node failed)."""
        self.cancelled = False
        self.crash: BaseException | None = None
        self.sorter: TopologicalSorter = TopologicalSorter(self.tasks.predecessors)
        self.lifecycles = Lifecycles(self._warn)

    def _referenced(self):
        """How many tasks' data tests read each port another task produced."""
        return Counter(
            source
            for members in self.tasks.members.values()
            for source in referenced_by(members, self.plan.nodes)
        )

    # -- the watcher: the calling thread handles the clock and the cancel signal ----------

    def run(self) -> RunResult:
        started, cpu_started = time.perf_counter(), time.process_time()
        self.emitter.emit("run_started", name=self.plan.name, nodes=list(self.reports.reported()))
        for node_id, reason in self.plan.eliminated.items():
            self.reports.left_out(node_id, reason)
        for node_id, results in self.plan.reused.items():
            self.reports.reused(node_id, results)
        with self.lock:
            self.sorter.prepare()
            self._take_ready()
            self._dispatch()
            while self.sorter.is_active() and self.crash is None:
                self.lock.wait(self._wait_s())
                if self.cancel_event.is_set() and not self.cancelled:
                    self._cancel()
                self._check_deadlines()
                self.retries.promote_due()
                self._take_ready()
                self._dispatch()
        still_open = self.lifecycles.wait()
        if self.crash is not None:
            raise self.crash
        for node_id in still_open:
            self._warn(node_id, "not closed yet: its stopped attempt has not returned")
        return self._finish(time.perf_counter() - started, time.process_time() - cpu_started)

    def _wait_s(self) -> float:
        wait = POLL_S
        now = time.monotonic()
        due_at = self.retries.next_due_at()
        if due_at is not None:
            wait = min(wait, due_at - now)
        for attempt in self.running.values():
            if attempt.node.timeout_s is not None and attempt.started is not None:
                wait = min(wait, attempt.started + attempt.node.timeout_s - now)
        return max(wait, 0.0)

    # -- scheduling, under the lock, by whichever thread changed something ----------------

    def _take_ready(self) -> None:
        """Queue every node whose parents are final; skip or cancel those that cannot run."""
        while ready := self.sorter.get_ready():
            for node_id in ready:
                blocked = [
                    parent
                    for parent in self.tasks.predecessors[node_id]
                    if self.results[parent].status != NodeStatus.SUCCEEDED
                ]
                if self.stopping:
                    self._final(node_id, NodeStatus.CANCELLED, self.stopping)
                elif blocked:
                    parent = self.results[blocked[0]]
                    failed = parent.failed_member or parent.node
                    failed = self.failed_upstream.get(blocked[0], failed)
                    self.failed_upstream[node_id] = failed
                    self._final(node_id, NodeStatus.SKIPPED, f"downstream of a failure of {failed}")
                else:
                    self.queued.append(node_id)
                    self.results[node_id].status = NodeStatus.QUEUED
                    self.reports.status(node_id, NodeStatus.QUEUED, 1)

    def _dispatch(self) -> None:
        """Start worker loops for waiting work, never more than `max_concurrency` at once."""
        waiting = len(self.queued) + self.retries.due_count()
        while self.workers < self.limit and self.workers - len(self.running) < waiting:
            self.workers += 1
            # Daemon threads: an abandoned node stuck in I/O must not keep the process alive.
            threading.Thread(target=self._worker, name="pipewright-node", daemon=True).start()

    def _next_attempt(self) -> Attempt | None:
        previous = self.retries.take_due()
        if previous is not None:
            return self._attempt(
                previous.node, previous.number + 1, previous.inputs, previous.references
            )
        if self.queued:
            node = self.tasks.nodes[self.queued.popleft()]
            inputs = take_inputs(node, self.store, self.results[node.id])
            references = take_references(self.tasks.members[node.id], self.plan.nodes, self.store)
            return self._attempt(node, 1, inputs, references)
        return None

    def _attempt(self, node: PlannedNode, number: int, inputs: dict, references: dict) -> Attempt:
        limits = [limit for limit in (node.row_limit, self.row_limit) if limit is not None]
        ctx = NodeContext(
            node.id, node.params, data_root=self.data_root, connections=self.connections,
            emit=self.emitter.emit, log_level=self.plan.config.log_level,
            row_limit=min(limits, default=None), columns=self.needed.get(node.id),
            run_id=self.emitter.run_id, may_commit=self.may_commit,
            resources=self.lifecycles.resources(node.id), position=node.position,
            head=node.head() if node.head is not None else None,
            spill_path=self.spill_paths.get(node.id),
        )  # fmt: skip
        return Attempt(node, number, ctx, inputs, references)

    # -- workers: run a node, then schedule what it unblocked, then take the next one -----

    def _worker(self) -> None:
        # Running the successor on the thread that finished its parent avoids a thread
        # hand-off per node, which would cost more than everything else the engine does; and
        # settling one node and taking the next under one hold of the lock halves the times
        # two workers contend for it.
        try:
            with self.lock:
                attempt = self._claim_next()
            while attempt is not None:
                node_id = attempt.node.id
                ended = self._run_attempt(attempt)
                with self.lock:
                    detached = self.running.get(node_id) is not attempt
                if detached:  # timed out or cancelled meanwhile: result discarded
                    self.lifecycles.close(node_id)  # its work has ended only now
                    return
                with self.lock:
                    del self.running[node_id]
                    self._on_finished(attempt, *ended)
                    self._take_ready()
                    self._dispatch()
                    last = self.results[node_id].status in NodeStatus.FINAL
                    if not self.sorter.is_active() or self.retries.backing_off:
                        self.lock.notify_all()
                    closing = last and self.lifecycles.is_open(node_id)
                    attempt = None if closing else self._claim_next()
                if closing:
                    self.lifecycles.close(node_id)
                    with self.lock:
                        attempt = self._claim_next()
        except BaseException as error:  # a bug in the engine: end the run loudly
            with self.lock:
                self.crash = error
                self.lock.notify_all()

    def _claim_next(self) -> Attempt | None:
        """Under the lock: this worker's next attempt, marked running, or None (and the worker
        retires)."""
        attempt = self._next_attempt()
        if attempt is None:
            self.workers -= 1
        else:
            self.running[attempt.node.id] = attempt
        return attempt

    def _run_attempt(self, attempt: Attempt) -> tuple:
        """Run one attempt outside the lock: its outputs, or the error and its traceback."""
        ctx = attempt.ctx
        node_id = attempt.node.id
        if ctx.cancelled:  # stopped between being taken and starting
            return None, NodeCancelled(f"node '{node_id}' was stopped"), None
        attempt.started = time.monotonic()
        if attempt.number == 1:
            self.results[node_id].started = now_iso()
            self.started_at[node_id] = attempt.started
        self.reports.status(node_id, NodeStatus.RUNNING, attempt.number, emit=ctx._guarded_emit)
        if attempt.node.timeout_s is not None:
            with self.lock:
                self.lock.notify_all()  # the watcher has a new deadline to keep
        members = self.tasks.members[node_id]
        return perform(
            attempt, self.lifecycles, self.recorder, members, self.results, self.plan.nodes
        )

    # -- outcomes ---------------------------------------------------------------------------

    def _on_finished(self, attempt: Attempt, outputs, error, trace) -> None:
        node = attempt.node
        result = self.results[node.id]
        result.attempts = attempt.number
        if error is None:
            keep_success(attempt, outputs, self.results, self.reports, self.store)
            self._final(node.id, NodeStatus.SUCCEEDED)
        elif attempt.number <= node.retries and not self.stopping and retryable(error):
            delay = self.retries.delay_after(attempt)
            result.status = NodeStatus.RETRYING
            self.reports.status(
                node.id, NodeStatus.RETRYING, attempt.number, error=describe(error), delay_s=delay
            )
            self.retries.wait(attempt, delay)
        else:
            result.error, result.traceback = describe(error), trace
            if isinstance(error, MemberError) and error.node is not None:
                result.error, result.failed_member = error.detail, error.node
            if isinstance(error, ChecksFailed):
                self.reports.by_node[error.node].extra["checks"] = error.results
            if not self.reports.is_node(node.id):
                self.reports.segment_ran_on(node.id, *segment_backend(attempt))
            self._final(node.id, NodeStatus.FAILED)

    def _final(self, node_id: str, status: NodeStatus, reason: str | None = None) -> None:
        """Settle a task's status, tell the sinks about its nodes, and let its children become
        ready."""
        result = self.results[node_id]
        result.status = status
        result.reason = reason
        result.finished = now_iso()
        attempt = self.running.pop(node_id, None)
        if attempt is not None:  # stopped while running: its worker thread is detached
            self.workers -= 1
            result.attempts = attempt.number
        if node_id in self.started_at:
            result.duration_s = round(time.monotonic() - self.started_at[node_id], 6)
        self.reports.settled(node_id, result)
        self.sorter.done(node_id)
        if status in NodeStatus.FAILURES and self.plan.config.stop_on_error and not self.stopping:
            self._stop_queued(f"stopped after the failure of {result.failed_member or node_id}")

    # -- stopping ---------------------------------------------------------------------------

    def _check_deadlines(self) -> None:
        now = time.monotonic()
        for node_id, attempt in list(self.running.items()):
            timeout = attempt.node.timeout_s
            if timeout is None or attempt.started is None or now < attempt.started + timeout:
                continue
            if attempt.ctx.stop():
                result = self.results[node_id]
                result.error = f"timed out after {timeout:g} s (attempt {attempt.number})"
                self._final(node_id, NodeStatus.TIMED_OUT)

    def _cancel(self) -> None:
        """Cancel the run: stop running nodes, start nothing new."""
        self.cancelled = True
        for node_id, attempt in list(self.running.items()):
            if attempt.ctx.stop():
                self._final(node_id, NodeStatus.CANCELLED, CANCELLED_REASON)
        self._stop_queued(CANCELLED_REASON)

    def _stop_queued(self, reason: str) -> None:
        """Cancel what has not started: queued nodes and nodes waiting to retry."""
        self.stopping = reason
        waiting = [attempt.node.id for attempt in self.retries.drop_all()]
        waiting += list(self.queued)
        self.queued.clear()
        for node_id in waiting:
            self._final(node_id, NodeStatus.CANCELLED, reason)
            self.lifecycles.close_soon(node_id)  # opened, waiting to retry: no thread runs it

    def _warn(self, node_id: str, message: str) -> None:
        self.emitter.emit("node_log", node=node_id, level="warning", message=message)

    def _finish(self, duration: float, cpu_s: float) -> RunResult:
        kinds = {node_id: node.operator.kind for node_id, node in self.plan.nodes.items()}
        reported = self.reports.reported()
        if self.recorder is not None:
            self.recorder.remember(reported)  # after the store copied what it keeps of them
        remove_spill_files(self.scratch)
        ended = outcome(reported.values(), kinds, cancelled=self.cancelled)
        if ended.status == RunStatus.SUCCEEDED:
            writes = self.recorder.timed if self.recorder is not None else {}
            record_profile(self.plan, reported, wall_s=duration, cpu_s=cpu_s, writes=writes)
        failure = {"error": ended.error} if ended.error else {}
        self.emitter.emit(
            "run_finished", status=ended.status, duration_s=round(duration, 6),
            totals=ended.totals, **failure,
        )  # fmt: skip
        return RunResult(
            self.emitter.run_id, ended.status, reported, duration, self.store.frames(),
            error=ended.error, totals=ended.totals,
        )  # fmt: skip
