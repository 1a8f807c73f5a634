"""Runs on a Dask cluster (`PIPEWRIGHT_DASK_SCHEDULER`): one run is one task, its events
recorded, its commits answered and its limits kept by its `Supervision`, as for a run in a
process of this machine.

`DaskSupervisor` submits the task (`editor.runs.dask_cluster`), waits for an attempt at it to say
hello, and hands that attempt to the supervision. The differences from a local process:

- no workers: while the cluster has none, the run is `queued`, its error the reason, and after
  `PIPEWRIGHT_DASK_WAIT` seconds it fails saying so; an unreachable scheduler fails it naming
  the address, and nothing ever runs locally instead;
- cancel is cooperative (the run's cancel signal, which interrupts DuckDB too); when the run
  has not stopped after the grace, the future is cancelled and every commit refused, but its
  thread cannot be killed: it stops when it next looks;
- memory is the worker's to keep (its `--memory-limit`; the run's budget is at most its share);
- a worker lost mid-run: Dask starts the task again elsewhere, and that attempt is given the
  run again, once, only if nothing was committed and the nodes that were running allow a retry
  (`retries`, their own or the pipeline's); else the run ends `interrupted`, saying why.

This module imports no `distributed` (it costs a web process half a second and about 47 MiB):
the launcher holds a `DaskSupervisor` whatever the settings, and `editor.runs.dask_cluster` is
imported only once a run goes to a cluster.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING

from django.conf import settings

from editor.models import Run
from editor.runs.supervision import Ending, Supervision, Supervisor
from runtime import RunStatus
from runtime.backends.dask.method_pickling import standard_method_pickling
from runtime.execution.executor import CANCELLED_REASON

if TYPE_CHECKING:
    from editor.runs.dask_cluster import Attempt, ClusterTask

log = logging.getLogger(__name__)


class DaskSupervisor(Supervisor):
    """Runs as tasks on the cluster `PIPEWRIGHT_DASK_SCHEDULER` names: each attempt at the
    task is a `RunHandle`, and a lost one may be followed by a second."""

    def execute(self, supervision: Supervision) -> Ending:
        """Submit the run's task, then supervise its attempts; an unreachable scheduler fails
        the run, naming its address."""
        from editor.runs.dask_cluster import ClusterTask, cluster_clients  # imports `distributed`

        address = settings.PIPEWRIGHT_DASK_SCHEDULER
        standard_method_pickling()
        try:
            task = ClusterTask(cluster_clients.get(address), supervision.order.run_id, address)
        except (OSError, ValueError, TypeError) as error:  # TypeError: a tls:// without TLS config
            log.warning("could not reach the Dask scheduler at %s: %s", address, error)
            return Ending(
                RunStatus.FAILED, f"could not reach the Dask scheduler at {address}: {error}"
            )
        try:
            return _attempts(task, supervision)
        finally:
            task.close()


def _attempts(task: ClusterTask, supervision: Supervision) -> Ending:
    """Supervise the attempts at the run until one ends it, or none may."""
    lost = ""
    """Once an attempt was lost and the run is given a second: what became of the first."""
    while True:
        try:
            attempt = _next_attempt(task, supervision.cancel_event)
        except _NoAttempt as reason:
            if lost:
                return supervision.end(RunStatus.INTERRUPTED, f"{lost}; not retried: {reason}")
            return supervision.end(RunStatus.FAILED, str(reason))
        if attempt is None:  # cancelled while it waited for a worker
            return supervision.end(RunStatus.CANCELLED, CANCELLED_REASON)
        if lost:
            supervision.start_over(f"{lost}; the run starts again on {attempt.worker}")
        try:
            supervision.run(attempt)
        finally:
            attempt.close()
        if supervision.report or supervision.trail.finished or supervision.decided:
            return supervision.ending(attempt)  # it ended, or was stopped: it was not lost
        status, what = attempt.death(supervision.at_node())
        refusal = _no_retry(supervision, retried=bool(lost))
        if refusal:
            return supervision.end(status, f"{what}; not retried: {refusal}")
        lost = what


class _NoAttempt(Exception):
    """No attempt at the run's task came, and none will."""


def _next_attempt(task: ClusterTask, cancel_event: threading.Event) -> Attempt | None:
    """The next attempt at the task, once it said hello; None if the run was cancelled
    meanwhile. While the cluster has no worker, the run is `queued` with a note saying so;
    `_NoAttempt` after `PIPEWRIGHT_DASK_WAIT` seconds of that, or if Dask gave up."""
    waiting_since = None
    """Since when the cluster has had no worker, while it has none."""
    none_at = f"the cluster at {task.address} has none"
    while not cancel_event.is_set():
        try:
            hello = task.hello()
            has_workers = hello is not None or task.has_workers()
        except OSError as error:
            raise _NoAttempt(f"the Dask scheduler at {task.address} is gone: {error}") from error
        if has_workers:
            if waiting_since is not None:
                _show_running(task.run_id)
                waiting_since = None
            if hello is not None:
                return task.attempt(hello)
        elif waiting_since is None:
            waiting_since = time.monotonic()
            _show_waiting(task.run_id, f"waiting for a Dask worker: {none_at}")
        elif time.monotonic() - waiting_since > settings.PIPEWRIGHT_DASK_WAIT_S:
            raise _NoAttempt(
                f"no Dask worker came within {settings.PIPEWRIGHT_DASK_WAIT_S:g} s "
                f"(PIPEWRIGHT_DASK_WAIT): {none_at}"
            )
        if task.future.done():  # erred past allowed-failures, say: no attempt will come
            raise _NoAttempt(
                f"the Dask cluster at {task.address} gave up on the run's task "
                f"({task.future.status})"
            )
    return None


def _no_retry(supervision: Supervision, *, retried: bool) -> str:
    """Why a run whose attempt was lost may not be given another ("" if it may)."""
    if retried:
        return "it was retried once already"
    if supervision.committed:
        return "it had committed an output"
    plan = supervision.plan
    running = [node for node in supervision.trail.running() if node in plan.nodes]
    refusing = [node for node in running if plan.nodes[node].retries < 1]
    if len(refusing) == 1:
        return f"node {refusing[0]} allows no retries"
    if refusing:
        return f"nodes {', '.join(refusing)} allow no retries"
    if not running and plan.config.retries < 1:
        return "the pipeline allows no retries"
    return ""


def _show_waiting(run_id: int | str, note: str) -> None:
    """Show a run as `queued`, `note` its error, while the cluster has no worker."""
    Run.objects.filter(pk=run_id, status=RunStatus.RUNNING).update(
        status=RunStatus.QUEUED, error=note
    )


def _show_running(run_id: int | str) -> None:
    """Show a run as `running` again once a worker came, unless it was cancelled meanwhile."""
    Run.objects.filter(pk=run_id, status=RunStatus.QUEUED).update(
        status=RunStatus.RUNNING, error=""
    )
