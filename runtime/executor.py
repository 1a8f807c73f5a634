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
after the decision. Such a thread no longer counts against `max_concurrency`.
"""

from __future__ import annotations

import heapq
import os
import threading
import time
import traceback
from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from graphlib import TopologicalSorter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from runtime.context import NodeContext
from runtime.errors import NodeCancelled, PipewrightError
from runtime.events import Emitter, EventSink, now_iso
from runtime.graph import Plan, PlannedNode, Source
from runtime.paths import FileArea
from runtime.pruning import needed_columns

if TYPE_CHECKING:
    from runtime.connection_specs import Connections

POLL_S = 0.1
"""How often the scheduler looks at the cancel signal and the clock when nothing happens."""


@dataclass(slots=True)
class NodeResult:
    """What happened to one node, with its metrics."""

    node: str
    status: str = "pending"
    attempts: int = 0
    started: str | None = None
    finished: str | None = None
    duration_s: float | None = None
    rows_in: dict[str, int] = field(default_factory=dict)
    rows_out: int | None = None
    bytes_out: int | None = None
    error: str | None = None
    traceback: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def metrics(self) -> dict[str, Any]:
        return {
            "started": self.started,
            "finished": self.finished,
            "duration_s": self.duration_s,
            "attempts": self.attempts,
            "rows_in": dict(self.rows_in),
            "rows_out": self.rows_out,
            "bytes_out": self.bytes_out,
            **self.extra,
        }


@dataclass(slots=True)
class RunResult:
    """The outcome of a run: its status, every node's result, and any retained outputs."""

    run_id: str | int
    status: str
    nodes: dict[str, NodeResult]
    duration_s: float
    outputs: dict[Source, pd.DataFrame] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "succeeded"


class _Attempt:
    """One try at running a node, with its own context (and so its own stop flag)."""

    __slots__ = ("ctx", "inputs", "node", "number", "started")

    def __init__(self, node: PlannedNode, number: int, ctx: NodeContext, inputs: dict):
        self.node = node
        self.number = number
        self.ctx = ctx
        self.inputs = inputs
        self.started: float | None = None


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
) -> RunResult:
    """Run a plan to the end (or until cancelled) and return what happened.

    `retain` names nodes whose outputs are kept in `RunResult.outputs` (for previews);
    `row_limit` asks input operators to read no more rows than that.
    """
    emitter = Emitter(sinks, run_id)
    execution = _Execution(
        plan, emitter, cancel_event or threading.Event(), FileArea.of(data_root), connections or {},
        set(retain), row_limit,
    )  # fmt: skip
    return execution.run()


class _Execution:
    """One run's state. Every field below `lock` is read and written only while holding it."""

    def __init__(self, plan, emitter, cancel_event, data_root, connections, retain, row_limit):
        self.plan = plan
        self.emitter = emitter
        self.cancel_event = cancel_event
        self.data_root = data_root
        self.connections = connections
        self.retain = retain
        self.row_limit = row_limit
        self.limit = plan.config.max_concurrency or os.cpu_count() or 1
        self.needed = needed_columns(plan, keep_all=retain)
        self.lock = threading.Condition()
        self.results = {node_id: NodeResult(node_id) for node_id in plan.order}
        self.store: dict[Source, pd.DataFrame] = {}
        self.unread = Counter(plan.consumers)
        self.queued: deque[str] = deque()
        self.retry_ready: deque[_Attempt] = deque()
        self.backoff: list[tuple[float, int, _Attempt]] = []
        self.running: dict[str, _Attempt] = {}
        self.started_at: dict[str, float] = {}
        self.workers = 0
        self.stopping = False
        self.cancelled = False
        self.crash: BaseException | None = None
        self.sorter: TopologicalSorter = TopologicalSorter(plan.predecessors)

    # -- the watcher: the calling thread handles the clock and the cancel signal ----------

    def run(self) -> RunResult:
        started = time.perf_counter()
        self.emitter.emit("run_started", name=self.plan.name, nodes=list(self.plan.order))
        with self.lock:
            self.sorter.prepare()
            self._take_ready()
            self._dispatch()
            while self.sorter.is_active() and self.crash is None:
                self.lock.wait(self._wait_s())
                if self.cancel_event.is_set() and not self.cancelled:
                    self._cancel()
                self._check_deadlines()
                self._promote_due_retries()
                self._take_ready()
                self._dispatch()
        if self.crash is not None:
            raise self.crash
        return self._finish(time.perf_counter() - started)

    def _wait_s(self) -> float:
        wait = POLL_S
        now = time.monotonic()
        if self.backoff:
            wait = min(wait, self.backoff[0][0] - now)
        for attempt in self.running.values():
            if attempt.node.timeout_s is not None and attempt.started is not None:
                wait = min(wait, attempt.started + attempt.node.timeout_s - now)
        return max(wait, 0.0)

    def _promote_due_retries(self) -> None:
        now = time.monotonic()
        while self.backoff and self.backoff[0][0] <= now:
            self.retry_ready.append(heapq.heappop(self.backoff)[2])

    # -- scheduling, under the lock, by whichever thread changed something ----------------

    def _take_ready(self) -> None:
        """Queue every node whose parents are final; skip or cancel those that cannot run."""
        while ready := self.sorter.get_ready():
            for node_id in ready:
                if self.cancelled or self.stopping:
                    self._final(node_id, "cancelled")
                elif any(
                    self.results[p].status != "succeeded" for p in self.plan.predecessors[node_id]
                ):
                    self._final(node_id, "skipped")
                else:
                    self.queued.append(node_id)
                    self.results[node_id].status = "queued"
                    self.emitter.emit("node_status", node=node_id, status="queued", attempt=1)

    def _dispatch(self) -> None:
        """Start worker loops for waiting work, never more than `max_concurrency` at once."""
        waiting = len(self.queued) + len(self.retry_ready)
        while self.workers < self.limit and self.workers - len(self.running) < waiting:
            self.workers += 1
            # Daemon threads: an abandoned node stuck in I/O must not keep the process alive.
            threading.Thread(target=self._worker, name="pipewright-node", daemon=True).start()

    def _next_attempt(self) -> _Attempt | None:
        if self.retry_ready:
            previous = self.retry_ready.popleft()
            return self._attempt(previous.node, previous.number + 1, previous.inputs)
        if self.queued:
            node = self.plan.nodes[self.queued.popleft()]
            return self._attempt(node, 1, self._take_inputs(node))
        return None

    def _attempt(self, node: PlannedNode, number: int, inputs: dict) -> _Attempt:
        ctx = NodeContext(
            node.id,
            node.params,
            data_root=self.data_root,
            connections=self.connections,
            emit=self.emitter.emit,
            log_level=self.plan.config.log_level,
            row_limit=self.row_limit,
            columns=self.needed[node.id],
            run_id=self.emitter.run_id,
        )
        return _Attempt(node, number, ctx, inputs)

    # -- workers: run a node, then schedule what it unblocked, then take the next one -----

    def _worker(self) -> None:
        # Running the successor on the thread that finished its parent avoids a thread
        # hand-off per node, which would cost more than everything else the engine does; and
        # settling one node and taking the next under one hold of the lock halves the times
        # two workers contend for it.
        try:
            with self.lock:
                attempt = self._start_next()
            while attempt is not None:
                outcome = self._work(attempt)
                with self.lock:
                    if self.running.get(attempt.node.id) is not attempt:
                        return  # timed out or cancelled meanwhile: detached, result discarded
                    del self.running[attempt.node.id]
                    self._on_finished(attempt, *outcome)
                    self._take_ready()
                    self._dispatch()
                    if not self.sorter.is_active() or self.backoff:
                        self.lock.notify_all()
                    attempt = self._start_next()
        except BaseException as error:  # a bug in the engine: end the run loudly
            with self.lock:
                self.crash = error
                self.lock.notify_all()

    def _start_next(self) -> _Attempt | None:
        """Under the lock: the next attempt, marked running, or None (and one worker less)."""
        attempt = self._next_attempt()
        if attempt is None:
            self.workers -= 1
        else:
            self.running[attempt.node.id] = attempt
        return attempt

    def _work(self, attempt: _Attempt) -> tuple:
        ctx = attempt.ctx
        node_id = attempt.node.id
        if ctx.cancelled:  # stopped between being taken and starting
            return None, NodeCancelled(f"node '{node_id}' was stopped"), None
        attempt.started = time.monotonic()
        if attempt.number == 1:
            self.results[node_id].started = now_iso()
            self.started_at[node_id] = attempt.started
        ctx._guarded_emit("node_status", node=node_id, status="running", attempt=attempt.number)
        if attempt.node.timeout_s is not None:
            with self.lock:
                self.lock.notify_all()  # the watcher has a new deadline to keep
        try:
            outputs = attempt.node.operator.run(ctx, attempt.inputs)
            _check_outputs(attempt.node, outputs)
        except BaseException as error:
            return None, error, traceback.format_exc()
        return outputs, None, None

    # -- outcomes ---------------------------------------------------------------------------

    def _on_finished(self, attempt: _Attempt, outputs, error, trace) -> None:
        node = attempt.node
        result = self.results[node.id]
        result.attempts = attempt.number
        if error is None:
            self._succeeded(attempt, outputs)
        elif attempt.number <= node.retries and not (self.stopping or self.cancelled):
            delay = self.plan.config.retry_delay_s * 2 ** (attempt.number - 1)
            result.status = "retrying"
            self.emitter.emit(
                "node_status", node=node.id, status="retrying", attempt=attempt.number,
                error=_describe(error), delay_s=delay,
            )  # fmt: skip
            heapq.heappush(self.backoff, (time.monotonic() + delay, id(attempt), attempt))
        else:
            result.error, result.traceback = _describe(error), trace
            self._final(node.id, "failed")

    def _succeeded(self, attempt: _Attempt, outputs: dict[str, pd.DataFrame]) -> None:
        node = attempt.node
        result = self.results[node.id]
        result.rows_out = sum(len(frame) for frame in outputs.values())
        result.extra = attempt.ctx.metrics
        result.bytes_out = result.extra.pop("bytes_out", None)
        if result.bytes_out is None:
            result.bytes_out = sum(_frame_bytes(frame) for frame in outputs.values())
        for port, frame in outputs.items():
            if self.unread[(node.id, port)] > 0 or node.id in self.retain:
                self.store[(node.id, port)] = frame
        self._final(node.id, "succeeded")

    def _final(self, node_id: str, status: str) -> None:
        """Settle a node's status, tell the sinks, and let its children become ready."""
        result = self.results[node_id]
        result.status = status
        result.finished = now_iso()
        attempt = self.running.pop(node_id, None)
        if attempt is not None:  # stopped while running: its worker thread is detached
            self.workers -= 1
            result.attempts = attempt.number
        if node_id in self.started_at:
            result.duration_s = round(time.monotonic() - self.started_at[node_id], 6)
        fields: dict[str, Any] = {"metrics": result.metrics()}
        if result.error is not None:
            fields.update(error=result.error, traceback=result.traceback)
        self.emitter.emit(
            "node_status", node=node_id, status=status, attempt=result.attempts, **fields
        )
        self.sorter.done(node_id)
        if status in ("failed", "timed_out") and self.plan.config.stop_on_error:
            self._stop_queued()

    def _take_inputs(self, node: PlannedNode) -> dict[str, Any]:
        """A node's input frames; an output nobody else will read is dropped from the store."""
        inputs: dict[str, Any] = {}
        rows_in = self.results[node.id].rows_in
        for port in node.operator.inputs:
            sources = node.inputs.get(port.name, [])
            frames = [self._read(source) for source in sources]
            rows_in[port.name] = sum(len(frame) for frame in frames)
            inputs[port.name] = frames if port.many else (frames[0] if frames else None)
        return inputs

    def _read(self, source: Source) -> pd.DataFrame:
        self.unread[source] -= 1
        if self.unread[source] == 0 and source[0] not in self.retain:
            return self.store.pop(source)
        return self.store[source]

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
                self._final(node_id, "timed_out")

    def _cancel(self) -> None:
        """Cancel the run: stop running nodes, start nothing new."""
        self.cancelled = True
        for node_id, attempt in list(self.running.items()):
            if attempt.ctx.stop():
                self._final(node_id, "cancelled")
        self._stop_queued()

    def _stop_queued(self) -> None:
        """Cancel what has not started: queued nodes and nodes waiting to retry."""
        self.stopping = True
        waiting = [attempt.node.id for attempt in self.retry_ready]
        waiting += [attempt.node.id for _, _, attempt in self.backoff]
        waiting += list(self.queued)
        self.queued.clear()
        self.retry_ready.clear()
        self.backoff.clear()
        for node_id in waiting:
            self._final(node_id, "cancelled")

    def _finish(self, duration: float) -> RunResult:
        statuses = Counter(result.status for result in self.results.values())
        if self.cancelled:
            status = "cancelled"
        elif statuses["failed"] or statuses["timed_out"]:
            status = "failed"
        else:
            status = "succeeded"
        kinds = {node_id: node.operator.kind for node_id, node in self.plan.nodes.items()}
        totals = {
            "nodes": dict(sorted(statuses.items())),
            "rows_read": sum(
                r.rows_out or 0 for r in self.results.values() if kinds[r.node] == "input"
            ),
            "rows_written": sum(
                sum(r.rows_in.values()) for r in self.results.values()
                if kinds[r.node] == "output" and r.status == "succeeded"
            ),
        }  # fmt: skip
        self.emitter.emit(
            "run_finished", status=status, duration_s=round(duration, 6), totals=totals
        )
        return RunResult(self.emitter.run_id, status, self.results, duration, dict(self.store))


def _check_outputs(node: PlannedNode, outputs) -> None:
    if not isinstance(outputs, dict):
        raise TypeError(
            f"operator '{node.operator.name}' returned {type(outputs).__name__}, not a dict"
        )
    for port in node.operator.outputs:
        if not isinstance(outputs.get(port.name), pd.DataFrame):
            raise TypeError(
                f"operator '{node.operator.name}' returned no DataFrame "
                f"for output port '{port.name}'"
            )


def _describe(error: BaseException) -> str:
    if isinstance(error, PipewrightError):
        return str(error)
    return f"{type(error).__name__}: {error}"


def _frame_bytes(frame: pd.DataFrame) -> int:
    """The shallow size of a frame's columns.

    Reads pandas' block manager because `memory_usage` costs about 100 µs a call, more than
    the engine's whole per-node budget; falls back to it if pandas changes its internals.
    """
    try:
        return int(sum(block.values.nbytes for block in frame._mgr.blocks))
    except AttributeError:
        return int(frame.memory_usage(index=False, deep=False).sum())
