"""Runs pipelines in the background, each supervised by a thread of a worker process: this web
process (the embedded default) or `manage.py runworkers`.

`submit` is called once a started run's `queued` row is committed: the database is the
queue (`editor.runs.queue`), and in the embedded default it wakes this process's `WorkerPool`,
which claims runs in fair order and has a `Supervisor` execute each snapshot where runs
execute (`SUPERVISORS`: a child process, or a task on a Dask cluster), recording every event
through `RunRecorder`, down to the outcome the runtime computed. With
`PIPEWRIGHT_WORKERS=service` the web process executes nothing: the pools of `runworkers` find
the row themselves. `cancel` stops a run within a second wherever it executes: the run is told
to stop (at once in this process, through `cancel_requested`, which `_watch_cancels` polls, in
another), its process is terminated if it does not, nothing new starts, outputs stay whole.

Management commands run in the foreground instead: runs started inside `foreground()` are held
by the calling process, so that no pool claims them, and `run_now` supervises them from the
calling thread the same way.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import partial

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.db import close_old_connections
from django.utils import timezone

from editor.database.outage import until_written
from editor.live import relay
from editor.models import NodeRun, Run
from editor.notifications import dispatch
from editor.pipelines.pins import pin_paths
from editor.runs import queue, run_end, watch
from editor.runs.dask import DaskSupervisor
from editor.runs.local import LocalSupervisor
from editor.runs.positions import positions_of
from editor.runs.recorder import RunRecorder, settle
from editor.runs.supervision import StopSignal, Supervisor
from editor.runs.worker_pool import WorkerPool
from editor.workspaces.membership import engine_access
from runtime import (
    EventSink,
    NodeStatus,
    PipewrightError,
    RunOptions,
    RunStatus,
    build_plan,
    load_document,
)
from runtime.budget import Budget
from runtime.execution.results import RunResult
from runtime.plan import Plan
from runtime.worker.wire import RunOrder, named_connections

CANCEL_POLL_S = 0.25
"""How often `cancel_requested` is read for the runs this process executes: a cancel asked
in another process reaches the run within this (and `supervision.GRACE_S` to stop it)."""

SUPERVISORS: dict[str, Supervisor] = {"local": LocalSupervisor(), "dask": DaskSupervisor()}
"""Where runs execute, by the name `_supervisor` reads off the settings."""

log = logging.getLogger(__name__)

_lock = threading.Lock()
_cancels: dict[int, StopSignal] = {}
"""The stop signal of each run this process executes."""
_thread = threading.local()
_embedded: WorkerPool | None = None
_watching = False
"""Whether this process's thread of `_watch_cancels` is started."""


def submit(run_id: int) -> None:
    """A run was queued: have this process's pool look for it (embedded default only)."""
    if settings.PIPEWRIGHT_WORKERS == "embedded" and not in_foreground():
        embedded_pool().wake()


def embedded_pool() -> WorkerPool:
    """This web process's pool (the embedded default): its workers exit when nothing waits,
    and `submit` wakes it again."""
    global _embedded
    with _lock:
        if _embedded is None:
            _embedded = WorkerPool(settings.PIPEWRIGHT_MAX_RUNS, execute, until_idle=True)
        return _embedded


def stop_embedded_pool(timeout: float) -> bool:
    """Have this process's pool claim nothing more and wait up to `timeout` seconds for the runs
    this process executes; those still going are then stopped as at a shutdown, and waited for
    as long again. Whether every run ended. The next `submit` starts a new pool, with the
    settings of then."""
    global _embedded
    with _lock:
        pool, _embedded = _embedded, None
    if pool is not None:
        pool.stop_claiming()
        pool.wait(timeout)
    if _runs_ended(timeout):
        return True
    stop_for_shutdown()
    return _runs_ended(timeout)


def _runs_ended(timeout: float) -> bool:
    """Whether every run this process executes ends within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with _lock:
            if not _cancels:
                return True
        time.sleep(0.05)
    with _lock:
        return not _cancels


def serve_embedded() -> None:
    """At web server start (embedded default): execute the runs still queued (a restart),
    and look every `PIPEWRIGHT_QUEUE_LOOK_S` for runs that other processes queued (0: never)."""
    if settings.PIPEWRIGHT_WORKERS == "embedded" and settings.PIPEWRIGHT_QUEUE_LOOK_S > 0:
        threading.Thread(target=_look_forever, name="pipewright-queue", daemon=True).start()


def _look_forever() -> None:
    while True:
        try:
            close_old_connections()
            if queue.unclaimed().exists():
                embedded_pool().wake()
        except Exception:  # the database may be briefly away; the next look will do
            log.warning("could not look for queued runs", exc_info=True)
        time.sleep(settings.PIPEWRIGHT_QUEUE_LOOK_S)


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


def stop_for_shutdown() -> None:
    """Stop every run this process executes (a worker service told to stop now): a run that
    committed nothing is queued again, for the next worker; one that did ends `cancelled`,
    saying it was stopped by a shutdown."""
    with _lock:
        signals = list(_cancels.values())
    for signal in signals:
        signal.shut_down()


@contextmanager
def foreground() -> Iterator[None]:
    """Runs this thread starts within the block are held by this process, for it to execute
    with `run_now`: no worker pool claims them."""
    _thread.foreground = True
    try:
        yield
    finally:
        _thread.foreground = False


def in_foreground() -> bool:
    return getattr(_thread, "foreground", False)


def holder() -> dict:
    """The fields that mark a run being created as held by this process (in `foreground()`),
    or none: a run nobody holds waits in the queue."""
    return {"host": socket.gethostname(), "pid": os.getpid()} if in_foreground() else {}


def run_now(run_id: int, extra_sinks: Iterable[EventSink] = ()) -> tuple[Plan, RunResult] | None:
    """Execute a queued run this process holds, from this thread, recorded as a worker
    would; None if it did not run to its end (its plan, as built from the snapshot, and its
    result)."""
    claimed = Run.objects.filter(pk=run_id, status=RunStatus.QUEUED, cancel_requested=False).update(
        status=RunStatus.RUNNING, started_at=timezone.now(), heartbeat_at=timezone.now()
    )
    return execute(run_id, extra_sinks) if claimed else None


def execute(run_id: int, extra_sinks: Iterable[EventSink] = ()) -> tuple[Plan, RunResult] | None:
    """Execute a run this process claimed (marked `running`), to its end; a crash fails the
    run, never the caller."""
    with _lock:
        cancel_event = _cancels.setdefault(run_id, StopSignal())
    watch.hold(run_id)
    _watch_cancels_once()
    try:
        run = Run.objects.select_related("pipeline__workspace", "started_by").get(pk=run_id)
        return _run(run, cancel_event, extra_sinks)
    except ObjectDoesNotExist:
        if Run.objects.filter(pk=run_id).exists():
            return _crashed(run_id)
        log.info("run %s was deleted with its pipeline while it ran", run_id)
        return None
    except Exception:
        return _crashed(run_id)
    finally:
        with _lock:
            _cancels.pop(run_id, None)
        watch.release(run_id)
        dispatch.run_ended(run_id)
        run_end.run_ended(run_id)


def _crashed(run_id: int) -> None:
    """Fail a run whose execution raised, with the traceback in the server log only."""
    log.exception("run %s crashed", run_id)
    until_written(partial(settle, run_id, RunStatus.FAILED, "internal error; see the server log"))


def _watch_cancels_once() -> None:
    global _watching
    with _lock:
        if _watching:
            return
        _watching = True
    threading.Thread(target=_watch_cancels, name="pipewright-cancels", daemon=True).start()


def _watch_cancels() -> None:
    """Forever: pass on the cancels asked in other processes to the runs executing here."""
    failing = False
    while True:
        time.sleep(CANCEL_POLL_S)
        with _lock:
            here = dict(_cancels)
        if here:
            failing = pass_on_cancels(here, failing)


def pass_on_cancels(here: dict[int, StopSignal], failing: bool) -> bool:
    """Set the signal of each run in `here` whose cancel was asked; whether the database
    failed to answer. An outage is logged once, with its traceback (given whether the last look
    failed), not four times a second."""
    try:
        close_old_connections()
        asked = Run.objects.filter(pk__in=list(here), cancel_requested=True)
        for run_id in asked.values_list("pk", flat=True):
            here[run_id].set()
    except Exception:  # the database may be briefly away; the next look will do
        if not failing:
            log.warning("could not read the runs' cancel requests", exc_info=True)
        return True
    if failing:
        log.info("reading the runs' cancel requests again")
    return False


def _run(
    run: Run, cancel_event: StopSignal, extra_sinks: Iterable[EventSink] = ()
) -> tuple[Plan, RunResult] | None:
    """Execute a claimed run where runs execute (`_supervisor`), recorded; None if it did not
    run to its end there (its snapshot no longer builds a plan, say)."""
    recorder = RunRecorder(run.pk, after_write=partial(relay.broadcast, run.pipeline_id))
    try:
        plan = build_plan(load_document(run.document), run.parameters)
        sinks = [_numbered_after(run.last_seq, sink) for sink in (recorder, *extra_sinks)]
        ended = _supervisor().supervise(
            _order(run, plan),
            plan,
            sinks,
            cancel_event,
            timeout_s=settings.PIPEWRIGHT_RUN_TIMEOUT_S,
        )
    except PipewrightError as problem:  # it never started: there is no outcome to write
        recorder.close(RunStatus.FAILED, str(problem))
        return None
    except BaseException:
        recorder.close()
        raise
    # The recorder writes the run's outcome with the `run_finished` event; the status given
    # covers a run that never got that far. Either is written after every event of the run,
    # once the database takes them: until then this process holds the run.
    if ended.status == RunStatus.QUEUED:  # a shutdown stopped it before it committed anything
        recorder.close()
        _queue_again(run.pk)
        return None
    recorder.close(ended.status, ended.error)
    return None if ended.result is None else (plan, ended.result)


def _numbered_after(offset: int, sink: EventSink) -> EventSink:
    """`sink`, given the run's events numbered after `offset`, its last event recorded: a run
    queued again by a shutdown goes on after its first attempt's events."""
    if not offset:
        return sink
    return lambda event: sink({**event, "seq": event["seq"] + offset})


def _queue_again(run_id: int) -> None:
    """Put a run back in the queue as it was before it was claimed (its log keeps why)."""
    NodeRun.objects.filter(run_id=run_id).update(
        status=NodeStatus.PENDING, attempts=0, metrics={}, error="", traceback="", attempt_spans=[]
    )
    Run.objects.filter(pk=run_id, status=RunStatus.RUNNING).update(
        status=RunStatus.QUEUED, started_at=None, heartbeat_at=None, host="", pid=None
    )


def _supervisor() -> Supervisor:
    """Where runs execute: on the Dask cluster `PIPEWRIGHT_DASK_SCHEDULER` names, else in
    processes of this machine."""
    return SUPERVISORS["dask" if settings.PIPEWRIGHT_DASK_SCHEDULER else "local"]


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
        cluster=settings.PIPEWRIGHT_DASK_SCHEDULER or "",
        run_options=RunOptions(
            fresh=run.fresh,
            tuning=run.tuning,
            up_to=run.up_to or None,
            from_node=run.from_node or None,
            left_out=tuple(run.left_out or ()),
            pins=pin_paths(run.pins or {}),
        ),
        positions=positions_of(run.pipeline_id),
    )
