"""A run's task on a Dask cluster as its supervisor reaches it: the task, each attempt at it
(the `RunHandle` its supervision watches), and this process's clients of clusters.

Everything here talks to the cluster through `distributed`, which only `editor.runs.dask`
imports, once a run goes to a cluster. The task is `runtime.worker.dask_task.run_on_worker`,
whose one argument is a name: each attempt at it says hello in the task's lobby (a queue), then
the order and the run's messages go over two queues of its own (`QueueLink`).
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time

from distributed import Client, Future, Queue

from runtime import RunStatus
from runtime.worker import dask_task
from runtime.worker.queue_link import QueueLink
from runtime.worker.queue_reader import WAKE, QueueReader

LOBBY_WAIT_S = 0.25
"""How long one look for an attempt's hello waits before the cancel signal and the cluster's
workers are looked at."""
WAIT_POLL_S = 0.02
"""How often the scheduler is asked whether an attempt that was stopped has ended."""

log = logging.getLogger(__name__)


class ClusterTask:
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

    def hello(self) -> dict | None:
        """The hello of the next attempt, if one says it within `LOBBY_WAIT_S`; OSError when
        the scheduler is gone."""
        hello = self.hellos.get(LOBBY_WAIT_S)
        return None if hello is None else json.loads(hello)

    def has_workers(self) -> bool:
        """Whether the cluster has a worker now; OSError when the scheduler is gone."""
        return bool(self.client.nthreads())

    def attempt(self, hello: dict) -> Attempt:
        """The attempt that said `hello`."""
        return Attempt(self, hello)

    def close(self) -> None:
        """Cancel the task, refuse the attempts that said hello since, let go of the lobby."""
        try:
            self.future.cancel()
            self.hellos.close()
            for hello in [*self.hellos.drain(), *self.lobby.get(batch=True)]:
                if hello != WAKE:
                    Attempt(self, json.loads(hello)).close()
            self.lobby.close()
        except OSError:  # the scheduler is gone, and its queues with it
            log.warning("run %s: could not let go of its task at %s", self.run_id, self.address)


class Attempt:
    """One attempt at a run's task, on the worker that took it: a `supervision.RunHandle`."""

    def __init__(self, task: ClusterTask, hello: dict):
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
