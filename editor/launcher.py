"""Runs pipelines in the background: each in a process of its own, at most
`PIPEWRIGHT_MAX_RUNS` at once, each supervised by a worker thread of the server process.

`submit` queues a run (status `queued` until a worker is free) and has `run_watch` hold it:
its host and pid, and a heartbeat. Runs wait in one queue per user, and a free worker takes
the next run of the user with the fewest runs going, the one served longest ago first among
equals: one user who queues many runs delays another user's single run by one run at most,
not by all of them. The worker marks it `running` and has `run_process` execute the snapshot
in a child process, recording every event through `RunRecorder`, down to the outcome the
runtime computed. `cancel` stops a run within a second: the run is told to stop, its process
is terminated if it does not, nothing new starts, outputs stay whole.

Management commands run in the foreground instead: runs started inside `foreground()` are not
handed to a worker, and `run_now` supervises them from the calling thread the same way.
"""

from __future__ import annotations

import itertools
import logging
import sys
import threading
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import partial

from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone

from editor import live, run_process, run_watch
from editor.models import NodeRun, Run
from editor.run_recorder import RunRecorder
from editor.workspaces import engine_access
from runtime.backends.budget import Budget
from runtime.errors import PipewrightError
from runtime.events import EventSink
from runtime.plan import Plan, build_plan
from runtime.results import RunResult
from runtime.spec import load_document
from runtime.statuses import NodeStatus, RunStatus
from runtime.worker.wire import RunOrder, named_connections

log = logging.getLogger(__name__)

_lock = threading.Lock()
_cancels: dict[int, threading.Event] = {}
_thread = threading.local()
# Under `_lock`: queued runs by user, runs being executed by user, when each user was last
# served (a turn number), and how many worker threads exist.
_waiting: dict[int | None, deque[int]] = {}
_going: Counter[int | None] = Counter()
_served: dict[int | None, int] = {}
_turns = itertools.count(1)
_workers = 0


def submit(run_id: int) -> None:
    """Queue a run for a worker thread of this process (not within `foreground()`)."""
    global _workers
    if getattr(_thread, "foreground", False):
        return
    user_id = Run.objects.filter(pk=run_id).values_list("started_by_id", flat=True).first()
    run_watch.hold(run_id)
    with _lock:
        _cancels[run_id] = threading.Event()
        _waiting.setdefault(user_id, deque()).append(run_id)
        another_worker = _workers < settings.PIPEWRIGHT_MAX_RUNS
        _workers += another_worker
    if another_worker:
        threading.Thread(target=_work, name="pipewright-run").start()


def _work() -> None:
    """A worker: execute runs in fair order until none is waiting."""
    global _workers
    while True:
        with _lock:
            if not _waiting:
                _workers -= 1
                return
            user_id, run_id = _take_next()
        try:
            _execute(run_id)
        finally:
            with _lock:
                _going[user_id] -= 1


def _take_next() -> tuple[int | None, int]:
    """Under `_lock`: the next run, from the user with fewest going and served longest ago."""
    user_id = min(_waiting, key=lambda user: (_going[user], _served.get(user, 0)))
    queue = _waiting[user_id]
    run_id = queue.popleft()
    if not queue:
        del _waiting[user_id]
    _going[user_id] += 1
    _served[user_id] = next(_turns)
    return user_id, run_id


def cancel(run_id: int) -> None:
    """Ask a run to stop; a queued run is cancelled before it starts."""
    Run.objects.filter(pk=run_id, status__in=RunStatus.ACTIVE).update(cancel_requested=True)
    with _lock:
        event = _cancels.get(run_id)
    if event is not None:
        event.set()
    Run.objects.filter(pk=run_id, status=RunStatus.QUEUED).update(
        status=RunStatus.CANCELLED, finished_at=timezone.now()
    )
    NodeRun.objects.filter(
        run_id=run_id, run__status=RunStatus.CANCELLED, status=NodeStatus.PENDING
    ).update(status=NodeStatus.CANCELLED)


@contextmanager
def foreground() -> Iterator[None]:
    """Runs this thread starts within the block stay queued, for it to execute with `run_now`."""
    _thread.foreground = True
    try:
        yield
    finally:
        _thread.foreground = False


def run_now(run_id: int, extra_sinks: Iterable[EventSink] = ()) -> tuple[Plan, RunResult] | None:
    """Execute a queued run from this thread, recorded as a worker would; None if it did not
    run to its end (its plan, as built from the snapshot, and its result)."""
    with _lock:
        cancel_event = _cancels.setdefault(run_id, threading.Event())
    run_watch.hold(run_id)
    try:
        return _claim_and_run(run_id, cancel_event, extra_sinks)
    finally:
        _forget(run_id)


def _execute(run_id: int) -> None:
    close_old_connections()
    try:
        with _lock:
            cancel_event = _cancels[run_id]
        _claim_and_run(run_id, cancel_event)
    finally:
        _forget(run_id)
        connection.close()


def _forget(run_id: int) -> None:
    with _lock:
        _cancels.pop(run_id, None)
    run_watch.release(run_id)


def _claim_and_run(
    run_id: int, cancel_event: threading.Event, extra_sinks: Iterable[EventSink] = ()
) -> tuple[Plan, RunResult] | None:
    """Claim a queued run (mark it `running`) and execute it; a crash fails the run, never
    the caller."""
    try:
        claimed = Run.objects.filter(
            pk=run_id, status=RunStatus.QUEUED, cancel_requested=False
        ).update(status=RunStatus.RUNNING, started_at=timezone.now(), heartbeat_at=timezone.now())
        if claimed:
            return _run(Run.objects.get(pk=run_id), cancel_event, extra_sinks)
    except Exception:
        log.exception("run %s crashed", run_id)
        _settle(run_id, RunStatus.FAILED, "internal error; see the server log")
    return None


def _run(
    run: Run, cancel_event: threading.Event, extra_sinks: Iterable[EventSink] = ()
) -> tuple[Plan, RunResult] | None:
    """Execute a claimed run in a process of its own, recorded; None if it did not run to
    its end in that process (its snapshot no longer builds a plan, say)."""
    recorder = RunRecorder(run.pk, after_write=partial(live.broadcast, run.pipeline_id))
    try:
        plan = build_plan(load_document(run.document), run.parameters)
        ended = run_process.supervise(
            _order(run, plan),
            plan,
            [recorder, *extra_sinks],
            cancel_event,
            timeout_s=settings.PIPEWRIGHT_RUN_TIMEOUT_S,
        )
    except PipewrightError as problem:  # it never started: there is no outcome to write
        status, error, ran = RunStatus.FAILED, str(problem), None
    else:
        status, error = ended.status, ended.error
        ran = None if ended.result is None else (plan, ended.result)
    finally:
        recorder.close()
    # The recorder wrote the run's outcome with the `run_finished` event; this covers a run
    # that never got that far (its snapshot no longer validates, say).
    _settle(run.pk, status, error)
    return ran


def _order(run: Run, plan: Plan) -> RunOrder:
    """What the run's process is given: the snapshot, its files, the connections it names."""
    access = engine_access(run.pipeline.workspace, run.started_by)
    return RunOrder(
        run_id=run.pk,
        document=run.document,
        parameters=run.parameters or {},
        area=access["data_root"],
        connections=named_connections(plan, access["connections"]),
        budget=Budget.from_environment(default_runs=settings.PIPEWRIGHT_MAX_RUNS),
        sys_path=list(sys.path),
    )


def _settle(run_id: int, status: str, error: str) -> None:
    """Write a run's end, unless it already has one."""
    Run.objects.filter(pk=run_id, status__in=RunStatus.ACTIVE).update(
        status=status, finished_at=timezone.now(), error=error
    )
