"""A run in a process of its own: what the forked process does with its run.

Given its `RunOrder` (the first message on its socket), it builds and prepares the plan, and
executes it: events go to the supervisor in batches (every `FLUSH_S`; at once past
`BATCH_EVENTS`, and when a node starts running, so that if the process dies the supervisor
knows which node it was in), and every commit of an output first asks the supervisor, which
refuses once it has decided to stop the run. A second thread reads the supervisor's
messages: `cancel` sets the executor's cancel signal (which interrupts DuckDB too), and the
end of the socket, when the supervisor is gone, ends the process at once: a run that nobody
records must not go on writing.

A Dask worker serves a run the same way over another link (`runtime.worker.dask_task`), as a
guest of a process it shares with other tasks: its `Host` then leaves the process's name and
module path alone, and a run whose supervisor is gone is stopped (cancelled, its commits
refused, its events dropped) rather than its process ended.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import os
import queue
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import asdict

from runtime.backends.duckdb_reads import check_reads
from runtime.document.spec import load_document
from runtime.errors import PipewrightError
from runtime.execution.events import Event
from runtime.execution.executor import execute
from runtime.execution.results import RunResult
from runtime.execution.statuses import NodeStatus
from runtime.operators.registry import default_registry
from runtime.plan import Plan, build_plan
from runtime.plan.prepare import prepare
from runtime.worker import process_flags
from runtime.worker.wire import MessageLink, RunOrder

FLUSH_S = 0.02
"""How long an event may wait to be sent with others: live views lag by this much more."""
BATCH_EVENTS = 500
EXIT_OK, EXIT_CRASHED, EXIT_ORPHANED = 0, 1, 3


class Host:
    """The process a run executes in, as the run treats it."""

    exits_when_orphaned = True
    """Whether a run whose supervisor is gone ends the process at once (it is the run's own),
    rather than only stopping."""

    def settle(self, order: RunOrder) -> RunOrder:
        """Make the process the run's own, and say what to execute: the order as given."""
        process_flags.name_process(f"pw-run-{order.run_id}")
        find_modules_as_the_supervisor(order.sys_path)
        return order

    def executing(self, plan: Plan) -> contextlib.AbstractContextManager:
        """The stretch of the run's execution (nothing to do in a process of its own)."""
        return contextlib.nullcontext()


OWN_PROCESS = Host()


def serve(link: MessageLink, start: dict, host: Host = OWN_PROCESS) -> int:
    """Serve the run whose `start` message came over `link`, in `host`, to its end: an exit
    code; EOFError or OSError when the supervisor goes away while they speak."""
    order = host.settle(RunOrder.from_message(start))
    supervisor = _Supervisor(link, exits_when_orphaned=host.exits_when_orphaned)
    events = EventBatches(link, supervisor.orphaned)
    try:
        plan = build_plan(load_document(order.document), order.parameters)
        plan = prepare(
            plan, data_root=order.area, connections=order.connections, cluster=order.cluster,
            options=order.run_options, positions=order.positions, probe=check_reads,
            budget=order.budget,
        )  # fmt: skip
        with host.executing(plan):
            result = execute(
                plan, sinks=[events], run_id=order.run_id, cancel_event=supervisor.cancel_event,
                data_root=order.area, connections=order.connections, budget=order.budget,
                may_commit=supervisor.may_commit,
            )  # fmt: skip
    except PipewrightError as problem:  # it could not start: no outcome of its own
        events.close()
        link.send("refused", error=str(problem))
        return EXIT_OK
    except Exception:
        events.close()
        link.send("crashed", traceback=traceback.format_exc())
        return EXIT_CRASHED
    events.close()
    link.send("done", result=summary(result))
    return EXIT_OK


def summary(result: RunResult) -> dict:
    """What the supervisor is told of a finished run: everything but the frames."""
    return {
        "status": result.status,
        "duration_s": result.duration_s,
        "error": result.error,
        "totals": result.totals,
        "nodes": {node_id: asdict(node) for node_id, node in result.nodes.items()},
    }


def find_modules_as_the_supervisor(sys_path: list[str]) -> None:
    """Use the supervisor's module path, and so its operators, if it changed since the
    server started (a plugin installed into a folder of its own)."""
    if sys_path != sys.path:
        sys.path[:] = sys_path
        importlib.invalidate_caches()
        default_registry.cache_clear()


class _Supervisor:
    """The supervisor as the run sees it: its cancel signal and its answers to commits."""

    def __init__(self, link: MessageLink, *, exits_when_orphaned: bool):
        self.link = link
        self.cancel_event = threading.Event()
        self._exits_when_orphaned = exits_when_orphaned
        self._gone = False
        self._answers: dict[int, queue.SimpleQueue] = {}
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()
        threading.Thread(target=self._listen, name="pipewright-supervisor", daemon=True).start()

    def may_commit(self) -> bool:
        """Ask the supervisor whether an output may be made visible now."""
        answer: queue.SimpleQueue = queue.SimpleQueue()
        with self._lock:
            if self._gone:
                return False
            number = next(self._numbers)
            self._answers[number] = answer
        try:
            self.link.send("may_commit", id=number)
        except OSError:
            self.orphaned()
        return answer.get()

    def orphaned(self) -> None:
        """The supervisor is gone: nobody records the run, so it must not go on writing."""
        if self._exits_when_orphaned:
            os._exit(EXIT_ORPHANED)
        self.cancel_event.set()
        with self._lock:
            self._gone = True
            waiting, self._answers = list(self._answers.values()), {}
        for answer in waiting:
            answer.put(False)

    def _listen(self) -> None:
        while True:
            try:
                message = self.link.receive()
            except EOFError:
                return self.orphaned()
            if message["kind"] == "cancel":
                self.cancel_event.set()
            elif message["kind"] == "commit":
                with self._lock:
                    answer = self._answers.pop(message["id"], None)
                if answer is not None:  # else refused meanwhile: the supervisor went away
                    answer.put(bool(message["allowed"]))


class EventBatches:
    """The run's event sink: events are sent to the supervisor in batches, in seq order;
    `orphaned` is called when the supervisor is gone (the batches are then dropped)."""

    def __init__(self, link: MessageLink, orphaned: Callable[[], None]):
        self._link = link
        self._orphaned = orphaned
        self._pending: list[Event] = []
        self._pending_lock = threading.Lock()
        self._sending = threading.Lock()
        """Held from taking a batch to sending it, so that batches leave in order."""
        self._stopped = threading.Event()
        self._sender = threading.Thread(target=self._send_loop, name="pipewright-events")
        self._sender.start()

    def __call__(self, event: Event) -> None:
        with self._pending_lock:
            self._pending.append(event)
            full = len(self._pending) >= BATCH_EVENTS
        # Sent before the node's work begins: a process that dies in it has said where it was.
        if full or (event["type"] == "node_status" and event["status"] == NodeStatus.RUNNING):
            self._flush()

    def close(self) -> None:
        """Send what is left, then stop."""
        self._stopped.set()
        self._sender.join()
        self._flush()

    def _send_loop(self) -> None:
        while not self._stopped.wait(FLUSH_S):
            self._flush()

    def _flush(self) -> None:
        with self._sending:
            with self._pending_lock:
                batch, self._pending = self._pending, []
            if batch:
                try:
                    self._link.send("events", events=batch)
                except OSError:
                    self._orphaned()
