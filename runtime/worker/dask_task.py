"""A run as a task on a Dask worker: the task that serves one run (`run_on_worker`), and the
names of the queues it and its supervisor talk through (`editor.runs.dask_cluster` is the other
side).

The task's one argument is its channel, a name that holds no secret: the order comes over a
queue (`queue_link`). Each attempt at the task first says hello in the channel's lobby (an id
of its own, and its worker), then waits for its order on a queue of its own. The supervisor
sends the order to the first attempt; when Dask starts the task again because its worker was
lost (it does so by itself, `distributed.scheduler.allowed-failures` times), the supervisor
sends the order to that second attempt only if the run may be retried, and the end of the link
to any attempt it refuses, which then returns having done nothing. So Dask never executes a run
again that the supervisor has not allowed.

`child.serve` serves the run as in a process of its own, with a `Host` for a process
shared with other tasks: its name and module path stay the worker's (the operators are those
installed on the worker), the run's budget is at most the worker's memory limit and cores per
thread, and a run whose supervisor is gone (no beat heard for `SILENCE_S`) stops: cancelled,
its commits refused, its events dropped.

The task never raises and returns None, and the supervisor never fetches a result: nothing a
worker pickles is unpickled by the web server. `dask worker --preload runtime.worker.dask_task`
loads the engine when the worker starts (`dask_setup`), so that its first run does not.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import logging
import uuid
from collections.abc import Iterator
from dataclasses import replace

from distributed import Queue, Worker, get_client, get_worker, rejoin, secede

from runtime.backends.dask.partitions import use_worker_client
from runtime.budget import Budget, usable_cores
from runtime.operators.registry import default_registry
from runtime.plan import Plan
from runtime.worker.child import Host, serve
from runtime.worker.queue_link import QueueLink
from runtime.worker.wire import RunOrder
from runtime.worker.zygote import PRELOAD

BEAT_S = 1.0
"""How often the supervisor tells its run it is still there."""
SILENCE_S = 30.0
"""How long a run goes on without hearing its supervisor: then it stops."""

log = logging.getLogger(__name__)


def dask_setup(worker: Worker) -> None:
    """Called by a worker started with `--preload runtime.worker.dask_task`: import what every
    run needs, and the operators, as the local run process server does."""
    for module in PRELOAD:
        importlib.import_module(module)
    default_registry().catalog()


def lobby_of(channel: str) -> str:
    """The queue where each attempt at a run's task says hello."""
    return f"{channel}-lobby"


def queues_of(channel: str, attempt: str) -> tuple[str, str]:
    """The queues of one attempt at a run's task: to it, from it."""
    return f"{channel}-{attempt}-to-run", f"{channel}-{attempt}-from-run"


def run_on_worker(channel: str) -> None:
    """The task of one run: say hello, then serve the run the supervisor sends, if it does."""
    try:
        _attempt(channel)
    except (EOFError, OSError):  # refused, or its supervisor went away: nothing ran
        pass
    except Exception:  # raised, it would reach the web server pickled: logged here instead
        log.exception("the task of %s failed", channel)


def _attempt(channel: str) -> None:
    client, worker = get_client(), get_worker()
    attempt = uuid.uuid4().hex
    to_run, from_run = queues_of(channel, attempt)
    link = QueueLink(
        client, inbox=to_run, outbox=from_run, peer_alive=lambda silent_s: silent_s < SILENCE_S
    )
    try:
        lobby = Queue(lobby_of(channel), client=client)
        try:
            lobby.put(json.dumps({"attempt": attempt, "worker": worker.address}))
        finally:
            lobby.close()
        serve(link, link.receive(), _WorkerHost(worker))
    finally:
        link.close()


class _WorkerHost(Host):
    """A Dask worker's process, which the run shares with the worker's other tasks."""

    exits_when_orphaned = False

    def __init__(self, worker: Worker):
        self.worker = worker

    def settle(self, order: RunOrder) -> RunOrder:
        """The order with a budget that fits one of the worker's threads."""
        return replace(order, budget=worker_share(order.budget, self.worker))

    @contextlib.contextmanager
    def executing(self, plan: Plan) -> Iterator[None]:
        """A run whose partitions go to the cluster leaves its worker thread to them while it
        executes (a worker of one thread would otherwise wait for itself), and takes one
        again at its end."""
        if not any(segment.backend == "dask" for segment in plan.segments):
            yield
            return
        use_worker_client(get_client())
        secede()
        try:
            yield
        finally:
            rejoin()


def worker_share(asked: Budget, worker: Worker) -> Budget:
    """`asked`, but at most what one of the worker's threads has: its memory limit (if it has
    one) and the machine's cores, divided by its threads."""
    threads = worker.state.nthreads
    limit = worker.memory_manager.memory_limit
    memory = min(asked.memory_bytes, limit // threads) if limit else asked.memory_bytes
    return Budget(memory, min(asked.threads, max(1, usable_cores() // threads)))
