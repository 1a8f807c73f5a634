"""Supervising a run on a Dask cluster (`PIPEWRIGHT_DASK_SCHEDULER`): one run is one task, its
events recorded, its commits answered and its limits kept by `run_process.Supervision`, as for
a run in a process of this machine.

`supervise` submits the task (`runtime.worker.dask_task.run_on_worker`, whose one argument is
a name), waits for an attempt at it to say hello, sends it the order over its queue and relays
what it says. The differences from a local process:

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
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from collections.abc import Iterable

from distributed import Client, Future, Queue
from django.conf import settings

from editor.models import Run
from editor.runs.local import Ending, Supervision
from runtime.backends.dask.method_pickling import standard_method_pickling
from runtime.events import EventSink
from runtime.executor import CANCELLED_REASON
from runtime.plan import Plan
from runtime.statuses import RunStatus
from runtime.worker import dask_task
from runtime.worker.queue_link import QueueLink
from runtime.worker.queue_reader import WAKE, QueueReader
from runtime.worker.wire import RunOrder

LOBBY_WAIT_S = 0.25
"""How long one look for an attempt's hello waits before the cancel signal and the cluster's
workers are looked at."""
WAIT_POLL_S = 0.02
"""How often the scheduler is asked whether an attempt that was stopped has ended."""

log = logging.getLogger(__name__)


def supervise(
    order: RunOrder,
    plan: Plan,
    sinks: Iterable[EventSink],
    cancel_event: threading.Event,
    *,
    timeout_s: float,
) -> Ending:
    """Execute `order` as a task on the Dask cluster, relaying its events to `sinks`, to its
    end (`plan`: see `Supervision`)."""
    address = settings.PIPEWRIGHT_DASK_SCHEDULER
    standard_method_pickling()
    supervision = Supervision(order, plan, sinks, cancel_event, timeout_s)
    try:
        task = _ClusterTask(cluster_clients.get(address), order.run_id, address)
    except (OSError, ValueError, TypeError) as error:  # TypeError: a tls:// without TLS config
        log.warning("could not reach the Dask scheduler at %s: %s", address, error)
        return Ending(RunStatus.FAILED, f"could not reach the Dask scheduler at {address}: {error}")
    try:
        return _attempts(task, supervision)
    finally:
        task.close()


def _attempts(task: _ClusterTask, supervision: Supervision) -> Ending:
    """Supervise the attempts at the run until one ends it, or none may."""
    lost = ""
    """Once an attempt was lost and the run is given a second: what became of the first."""
    while True:
        try:
            attempt = task.next_attempt(supervision.cancel_event)
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


class _NoAttempt(Exception):
    """No attempt at the run's task came, and none will."""


class _ClusterTask:
    """A run's task on the cluster: its future, and the lobby its attempts say hello in."""

    def __init__(self, client: Client, run_id: int | str, address: str):
        self.client = client
        self.run_id = run_id
        self.address = address
        self.key = f"pipewright-run-{run_id}-{secrets.token_hex(6)}"
        """The task's key, and the channel its queues are named after."""
        self.lobby = Queue(dask_task.lobby_of(self.key), client=client)
        self.hellos = QueueReader(self.lobby)
        self.future: Future = client.submit(
            dask_task.run_on_worker, self.key, key=self.key, pure=False
        )

    def next_attempt(self, cancel_event: threading.Event) -> _Attempt | None:
        """The next attempt at the task, once it said hello; None if the run was cancelled
        meanwhile. While the cluster has no worker, the run is `queued` with a note saying so;
        `_NoAttempt` after `PIPEWRIGHT_DASK_WAIT` seconds of that, or if Dask gave up."""
        waiting_since = None
        """Since when the cluster has had no worker, while it has none."""
        while not cancel_event.is_set():
            try:
                hello = self._hello()
                has_workers = hello is not None or bool(self.client.nthreads())
            except OSError as error:
                raise _NoAttempt(
                    f"the Dask scheduler at {self.address} is gone: {error}"
                ) from error
            if has_workers:
                if waiting_since is not None:
                    _show_running(self.run_id)
                    waiting_since = None
                if hello is not None:
                    return _Attempt(self, hello)
            elif waiting_since is None:
                waiting_since = time.monotonic()
                _show_waiting(self.run_id, f"waiting for a Dask worker: {self._none_at()}")
            elif time.monotonic() - waiting_since > settings.PIPEWRIGHT_DASK_WAIT_S:
                raise _NoAttempt(
                    f"no Dask worker came within {settings.PIPEWRIGHT_DASK_WAIT_S:g} s "
                    f"(PIPEWRIGHT_DASK_WAIT): {self._none_at()}"
                )
            if self.future.done():  # erred past allowed-failures, say: no attempt will come
                raise _NoAttempt(
                    f"the Dask cluster at {self.address} gave up on the run's task "
                    f"({self.future.status})"
                )
        return None

    def _hello(self) -> dict | None:
        """The hello of the next attempt, if one says it within `LOBBY_WAIT_S`."""
        hello = self.hellos.get(LOBBY_WAIT_S)
        return None if hello is None else json.loads(hello)

    def _none_at(self) -> str:
        return f"the cluster at {self.address} has none"

    def close(self) -> None:
        """Cancel the task, refuse the attempts that said hello since, let go of the lobby."""
        try:
            self.future.cancel()
            self.hellos.close()
            for hello in [*self.hellos.drain(), *self.lobby.get(batch=True)]:
                if hello != WAKE:
                    _Attempt(self, json.loads(hello)).close()
            self.lobby.close()
        except OSError:  # the scheduler is gone, and its queues with it
            log.warning("run %s: could not let go of its task at %s", self.run_id, self.address)


class _Attempt:
    """One attempt at a run's task, on the worker that took it: a `run_process.RunHandle`."""

    def __init__(self, task: _ClusterTask, hello: dict):
        self.task = task
        self.worker = hello["worker"]
        self.scheduler_lost = False
        to_run, from_run = dask_task.queues_of(task.key, hello["attempt"])
        self.link = QueueLink(
            task.client, inbox=from_run, outbox=to_run, peer_alive=self._executing,
            beat_s=dask_task.BEAT_S,
        )  # fmt: skip

    def _executing(self, _silent_s: float = 0.0) -> bool:
        """Whether the attempt still executes: its worker is in the cluster, its task has not
        ended, and no later attempt said hello (which Dask starts only once the worker is
        gone). Not the worker's `processing` list: a run that sends partitions to the cluster
        leaves its thread to them while it waits (it secedes), and is no longer listed there."""
        try:
            workers = self.task.client.nthreads()
            later = self.task.lobby.qsize() or self.task.hellos.waiting()
        except OSError:  # the scheduler is gone: so is every task it held
            self.scheduler_lost = True
            return False
        return self.worker in workers and not self.task.future.done() and not later

    def wait(self, timeout: float) -> bool:
        """Whether the attempt has ended, waiting up to `timeout` seconds for it to."""
        deadline = time.monotonic() + timeout
        while self._executing():
            if time.monotonic() >= deadline:
                return False
            time.sleep(WAIT_POLL_S)
        return True

    def stop(self, *, at_once: bool) -> None:
        """Cancel the task: Dask forgets it, though its thread goes on until the run looks at
        its cancel signal or its commits (all refused by now)."""
        self.task.future.cancel()

    def growth(self) -> int:
        """Unknown: the worker's memory is the worker's to keep (its nanny's limit)."""
        return 0

    def death(self, where: str) -> tuple[RunStatus, str]:
        """An attempt's end before its run's: its worker was lost, or the scheduler was."""
        if self.scheduler_lost:
            what = f"the connection to the Dask scheduler at {self.task.address} was lost"
        else:
            what = f"the Dask worker {self.worker} running the run was lost"
        return RunStatus.INTERRUPTED, what + where

    def close(self) -> None:
        self.link.close(take_back=True)


class ClusterClients:
    """This process's clients of Dask clusters, one per scheduler address, shared by its runs:
    connected when first needed, and again once broken. Their security (`tls://`) is Dask's
    configuration's (`distributed.comm.tls.*`)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._clients: dict[str, Client] = {}

    def get(self, address: str) -> Client:
        """The client of the cluster at `address`; OSError when it cannot be reached within
        Dask's `distributed.comm.timeouts.connect`."""
        with self._lock:
            client = self._clients.get(address)
            if client is not None and client.status in ("running", "connecting"):
                return client
            if client is not None:
                client.close()
            self._clients[address] = client = Client(address, set_as_default=False)
            return client

    def close(self) -> None:
        """Disconnect from every cluster."""
        with self._lock:
            for client in self._clients.values():
                client.close()
            self._clients.clear()


cluster_clients = ClusterClients()


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
