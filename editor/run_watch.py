"""Keeping run states honest across server restarts.

Each server process beats a heartbeat on the runs it holds (queued or running). When the
ASGI server starts, and every `REAP_EVERY_S` after, runs that no live process holds are
marked `interrupted`, with their unfinished node runs: runs of a process of this host that
is gone, or whose heartbeat went stale. A live run of another process keeps its heartbeat
fresh, so it is never touched.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from datetime import timedelta

from django.db import close_old_connections, transaction
from django.utils import timezone

from editor import launcher
from editor.models import ACTIVE_RUN_STATUSES, NodeRun, Run
from runtime.events import FINAL_NODE_STATUSES

HEARTBEAT_S = 5
STALE_AFTER_S = 60
REAP_EVERY_S = 30

log = logging.getLogger(__name__)
_started = threading.Event()


def start_watching() -> None:
    """Start this process's heartbeat and reaper thread (once)."""
    if _started.is_set():
        return
    _started.set()
    threading.Thread(target=_watch, name="pipewright-run-watch", daemon=True).start()


def _watch() -> None:
    last_reap = 0.0
    while True:
        try:
            close_old_connections()
            beat()
            if time.monotonic() - last_reap >= REAP_EVERY_S:
                last_reap = time.monotonic()
                reap_interrupted_runs()
        except Exception:  # the database may be briefly away; try again next beat
            log.warning("run watch failed", exc_info=True)
        time.sleep(HEARTBEAT_S)


def beat() -> None:
    """Mark this process's runs as alive."""
    held = launcher.active_run_ids()
    if held:
        Run.objects.filter(pk__in=held, status__in=ACTIVE_RUN_STATUSES).update(
            heartbeat_at=timezone.now()
        )


def reap_interrupted_runs() -> list[int]:
    """Mark runs that no live process holds as `interrupted`; return their ids."""
    held = set(launcher.active_run_ids())
    stale = timezone.now() - timedelta(seconds=STALE_AFTER_S)
    here = socket.gethostname()
    dead = [
        run.pk
        for run in Run.objects.filter(status__in=ACTIVE_RUN_STATUSES)
        if run.pk not in held and _abandoned(run, here, stale)
    ]
    for run_id in dead:
        _interrupt(run_id)
    if dead:
        log.warning("marked runs %s interrupted: their server process is gone", dead)
    return dead


def _abandoned(run: Run, here: str, stale) -> bool:
    if run.host == here and run.pid is not None:
        return run.pid == os.getpid() or not _process_alive(run.pid)
    last_sign = run.heartbeat_at or run.created_at
    return last_sign < stale


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@transaction.atomic
def _interrupt(run_id: int) -> None:
    Run.objects.filter(pk=run_id, status__in=ACTIVE_RUN_STATUSES).update(
        status="interrupted",
        finished_at=timezone.now(),
        error="the server process running it stopped before it finished",
    )
    NodeRun.objects.filter(run_id=run_id).exclude(status__in=FINAL_NODE_STATUSES).update(
        status="interrupted"
    )
