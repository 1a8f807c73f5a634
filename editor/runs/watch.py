"""Keeping run states honest across server restarts.

Each process beats a heartbeat on the runs it holds (running, or queued for itself): a
worker pool's process (the web server, `manage.py runworkers`) as well as
`manage.py runpipeline`. When the ASGI server starts, and every half of `stale_after_s()`
after, runs that a process held and no live process holds any more are marked `interrupted`,
with their unfinished node runs: runs of a process of this host that is gone, or whose
heartbeat went stale (`PIPEWRIGHT_RUN_STALE_AFTER`, 60 s unless set). A live run of another
process keeps its heartbeat fresh, so it is never touched; a queued run that no process holds
waits in the queue (`queue`) for any worker.

A run is reaped for its process's missing heartbeats, never for writes that failed: while the
database is away nobody's heartbeat gets through, so once this process has seen it fail,
heartbeats count as missed only after it has been reachable again for `stale_after_s()` (every
live process has beaten by then). A run this process executes stays held until its recorder
has written its end, however long the database takes to come back.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from datetime import timedelta

from django.conf import settings
from django.db import close_old_connections, transaction
from django.utils import timezone

from editor.models import NodeRun, Run
from editor.notifications import dispatch
from editor.runs.leftovers import remove_leftovers
from editor.runs.supervision import UNREPORTED
from runtime import NodeStatus, RunStatus

HEARTBEAT_S = 5
STOPPED = "the server process running it stopped"

log = logging.getLogger(__name__)
_lock = threading.Lock()
_held: set[int] = set()
_threads: dict[str, threading.Thread] = {}
_database_away = False
"""Whether this process's watch last failed to reach the database."""
_database_back_at: float | None = None
"""When (monotonic) it reached the database again after it last failed to; None: never failed."""


def stale_after_s() -> float:
    """Seconds without a heartbeat after which a run's process counts as gone
    (`PIPEWRIGHT_RUN_STALE_AFTER`)."""
    return settings.PIPEWRIGHT_RUN_STALE_AFTER_S


def hold(run_id: int) -> None:
    """This process has taken on a run: record where it lives, and keep its heartbeat."""
    with _lock:
        _held.add(run_id)
    Run.objects.filter(pk=run_id).update(
        host=socket.gethostname(), pid=os.getpid(), heartbeat_at=timezone.now()
    )
    _run_in_background_once("heartbeat", _beat_forever)


def keep(run_id: int) -> None:
    """Count a run as this process's before its claim commits (`queue`): the reaper reads what
    this process holds after the runs it looks at, so a run it sees claimed by this process
    is held by then, not taken for one a dead process of the same pid left."""
    with _lock:
        _held.add(run_id)


def release(run_id: int) -> None:
    """This process is done with a run."""
    with _lock:
        _held.discard(run_id)


def held_runs() -> set[int]:
    with _lock:
        return set(_held)


def start_reaping() -> None:
    """At server start: reap now, then every half of `stale_after_s()` (not in management
    commands)."""
    _run_in_background_once("reaper", _reap_forever)


def _run_in_background_once(name: str, loop) -> None:
    """Run `loop` (which never returns) in a daemon thread, unless this process runs it already."""
    with _lock:
        if name not in _threads:
            _threads[name] = threading.Thread(target=loop, name=f"pipewright-{name}", daemon=True)
            _threads[name].start()


def _beat_forever() -> None:
    while True:
        if held_runs():  # else nothing to beat for: the database is left alone
            _guarded(beat)
        time.sleep(HEARTBEAT_S)


def _reap_forever() -> None:
    while True:
        _guarded(reap_and_remove_leftovers)
        time.sleep(stale_after_s() / 2)


def _guarded(action) -> None:
    global _database_away, _database_back_at
    try:
        close_old_connections()
        action()
    except Exception:  # the database may be briefly away; try again next time
        log.warning("run watch: %s failed", action.__name__, exc_info=True)
        with _lock:
            _database_away = True
    else:
        with _lock:
            if _database_away:
                _database_away, _database_back_at = False, time.monotonic()


def _heartbeats_tell() -> bool:
    """Whether a stale heartbeat says its process is gone: not while the database is away, nor
    until it has been back for `stale_after_s()` (no heartbeat got through while it was away)."""
    with _lock:
        if _database_away:
            return False
        back_at = _database_back_at
    return back_at is None or time.monotonic() - back_at >= stale_after_s()


def beat() -> None:
    """Mark this process's runs as alive."""
    held = held_runs()
    if held:
        Run.objects.filter(pk__in=held, status__in=RunStatus.ACTIVE).update(
            heartbeat_at=timezone.now()
        )


def reap_interrupted_runs() -> list[int]:
    """Mark runs that no live process holds as `interrupted`; return their ids. What this
    process holds is read after the runs, so that a run this process claimed meanwhile (its
    pid is ours) is held already (`keep`); a run claimed again since it was read is left."""
    stale = timezone.now() - timedelta(seconds=stale_after_s())
    here = socket.gethostname()
    active = Run.objects.filter(status__in=RunStatus.ACTIVE).exclude(
        status=RunStatus.QUEUED, pid=None
    )
    runs = list(active.only("pk", "host", "pid", "heartbeat_at", "created_at"))
    held = held_runs()
    dead = [run for run in runs if run.pk not in held and _abandoned(run, here, stale)]
    dead = [run.pk for run in dead if _interrupt(run)]
    if dead:
        log.warning("marked runs %s interrupted: their server process is gone", dead)
    return dead


def reap_and_remove_leftovers() -> list[int]:
    """The reaper's round: reap, then remove what the reaped runs left (their temporary
    files, spill folders, staging tables) here and now: their own process will not."""
    dead = reap_interrupted_runs()
    if dead:
        remove_leftovers(dead)
    return dead


def _abandoned(run: Run, here: str, stale) -> bool:
    if run.host == here and run.pid is not None:
        return run.pid == os.getpid() or not _process_alive(run.pid)
    last_sign = run.heartbeat_at or run.created_at
    return last_sign < stale and _heartbeats_tell()


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@transaction.atomic
def _interrupt(run: Run) -> bool:
    """End a run its process left: `interrupted`, unless every node had succeeded (outputs
    committed) and only the report of its end was lost; whether it was (not if another process
    claimed it since it was read)."""
    run_id = run.pk
    status, error = RunStatus.INTERRUPTED, f"{STOPPED} before it finished"
    nodes = NodeRun.objects.filter(run_id=run_id)
    if nodes.exists() and not nodes.exclude(status=NodeStatus.SUCCEEDED).exists():
        status, error = RunStatus.SUCCEEDED, f"{UNREPORTED} ({STOPPED})"
    left = Run.objects.filter(pk=run_id, status__in=RunStatus.ACTIVE, host=run.host, pid=run.pid)
    interrupted = left.update(status=status, finished_at=timezone.now(), error=error)
    NodeRun.objects.filter(run_id=run_id).exclude(status__in=NodeStatus.FINAL).update(
        status=NodeStatus.INTERRUPTED
    )
    if interrupted:
        transaction.on_commit(lambda: dispatch.run_ended(run_id))
    return bool(interrupted)
