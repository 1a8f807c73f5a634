"""Supervising a run wherever it executes: its events relayed, its commits answered, its limits
kept, and its end written whatever becomes of the place it executed in.

The launcher knows runs only through a `Supervisor` (the contract): `supervise` takes a claimed
run's `RunOrder` to its `Ending`. Each place runs execute is one small implementation of it,
chosen by the launcher: processes of this machine (`editor.runs.local`) and tasks on a Dask
cluster (`editor.runs.dask`). An implementation only starts the run there and hands what it
started, a `RunHandle`, to the run's `Supervision`, which does the rest, written once:

- it gives the run its order, relays its events to the sinks (the `RunRecorder` writes them) and
  answers its requests to commit;
- the cancel signal (the user's click): the run is told to stop and has `GRACE_S` to end itself;
  then its handle stops it and the run and its unfinished nodes are marked `cancelled` here;
- memory: the run may grow by its budget (PIPEWRIGHT_RUN_MEMORY, see `Budget`) and
  `HEADROOM_BYTES` beyond its size at its start; past that it is stopped at once and fails "out
  of memory at node X" (only a local process tells its growth);
- wall time: past PIPEWRIGHT_RUN_TIMEOUT it is stopped at once and fails saying so.

From the moment cancel or a limit is decided, every request to commit is refused; what the run
sent before it was stopped is still relayed, then the supervisor's own ending. A run whose
handle ended on its own fails with what ended it (`RunHandle.death`) and the node that was
running; the temporary files and staging tables a stopped run leaves are removed here.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from runtime import Event, EventSink, RunStatus
from runtime.backends.spill import remove_stale_spill_folders
from runtime.execution.executor import CANCELLED_REASON
from runtime.execution.results import NodeResult, RunResult
from runtime.operators.atomic import remove_stale_temporaries
from runtime.operators.sql.staging import drop_staging_tables
from runtime.plan import Plan
from runtime.worker.trail import Trail
from runtime.worker.wire import MessageLink, RunOrder

GRACE_S = 0.5
"""After a cancel, how long the run may take to end itself."""
TICK_S = 0.02
"""How often the cancel signal, the clock and the memory are looked at when nothing comes."""
HEADROOM_BYTES = 128 * 2**20
"""What a run's process may use beyond its budget, which is DuckDB's `memory_limit`: Arrow
buffers in transit, Python objects, DuckDB's allocations outside its buffer pool. Measured on
the seed ETL of 2 million rows, with budgets of 64 to 256 MiB, these add 60 to 100 MiB."""
EXIT_WAIT_S = 5.0
"""How long a run may take to end once it said it is done, or was stopped."""
CRASHED = "internal error; see the server log"
UNREPORTED = "the process ended before it reported; every node had succeeded, outputs written"
"""Why a run whose process died after all its work succeeded: its outputs are committed."""
SHUTDOWN_STOPPED = (
    "the run was stopped by a shutdown of the worker service executing it; the outputs it had "
    "committed before stay"
)
SHUTDOWN_QUEUED = (
    "the worker service executing this run was shut down before the run committed anything: "
    "the run is queued again, for the next worker"
)

log = logging.getLogger(__name__)


class StopSignal(threading.Event):
    """A run's stop signal: set by a user's cancel, or by a shutdown of the worker service
    executing it (`shut_down`), after which a run that committed nothing is queued again."""

    shutdown = False

    def shut_down(self) -> None:
        self.shutdown = True
        self.set()


@dataclass(frozen=True)
class Ending:
    """How a supervised run ended; `result` only when what executed it reported one."""

    status: str
    error: str
    result: RunResult | None = None


class RunHandle(Protocol):
    """What a `Supervisor` started, as the run's supervision sees it: a process of this machine
    (`runtime.worker.zygote.RunProcess`) or an attempt at a task on a Dask cluster
    (`editor.runs.dask_cluster.Attempt`)."""

    link: MessageLink
    """Its messages: `receive` says EOFError once it has ended and all it sent was read."""

    def wait(self, timeout: float) -> bool:
        """Whether it has ended, waiting up to `timeout` seconds for it to."""

    def stop(self, *, at_once: bool) -> None:
        """End it without its consent: at once, or after the short while it gets to end."""

    def growth(self) -> int:
        """By how much its memory grew since it started; 0 where nobody can tell."""

    def death(self, where: str) -> tuple[RunStatus, str]:
        """What became of a run it stopped executing before the run ended (`where`: the
        nodes it was in, " at node X")."""


class Supervisor(ABC):
    """Where runs execute: the one thing the launcher knows of it. Its implementations differ
    only in how a run is started there (and how many times: a Dask task may be started again
    on another worker); watching, stopping and ending it are `Supervision`'s, the same for all.
    A new place is one subclass and one key of `launcher.SUPERVISORS`."""

    def supervise(
        self,
        order: RunOrder,
        plan: Plan,
        sinks: Iterable[EventSink],
        cancel_event: threading.Event,
        *,
        timeout_s: float,
    ) -> Ending:
        """Execute `order` here, relaying its events to `sinks`, to its end (`plan`: see
        `Supervision`)."""
        return self.execute(Supervision(order, plan, sinks, cancel_event, timeout_s))

    @abstractmethod
    def execute(self, supervision: Supervision) -> Ending:
        """Start the run here and have `supervision` watch what was started (`run`), to its
        end (`ending`, or `end` when the run could not end itself); a run that cannot be
        started here fails, saying why."""


class Supervision:
    """One run's supervision: what was relayed, decided and reported."""

    def __init__(
        self, order: RunOrder, plan: Plan, sinks: Iterable[EventSink], cancel_event, timeout_s
    ):
        """`plan`: the run's document as built by the caller (not prepared): its nodes are
        those the supervisor ends itself if the run cannot."""
        self.order = order
        self.plan = plan
        kinds = {node_id: plan.nodes[node_id].operator.kind for node_id in plan.order}
        self.trail = Trail(order.run_id, kinds)
        self.sinks = list(sinks)
        self.cancel_event = cancel_event
        self.timeout_s = timeout_s
        self.deadline: float | None = None
        """When the run's time is up: `timeout_s` after it first started executing."""
        self.decided: str | None = None
        """Once the supervisor has decided to stop the run: why (cancel, memory, timeout)."""
        self.report: dict | None = None
        """The process's last word: `done`, `refused` or `crashed`."""
        self.committed = False
        """Whether an output was allowed to be made visible."""
        self.queued_again = False
        """Whether a shutdown stopped the run before it committed anything (it goes back to
        the queue instead of ending)."""
        self._numbered_after = 0
        """What the events relayed are numbered after: those of an attempt at the run that was
        lost, when this is the second (`start_over`)."""

    def run(self, process: RunHandle) -> None:
        """Give the process its run, then relay and answer it until it ends."""
        self.tell(process, "start", **self.order.to_message())
        self.watch(process)

    def start_over(self, message: str) -> None:
        """Before a second attempt at the run, its first lost with nothing committed: remove
        what the first left, say why in the run's log, and number the next attempt's events
        after those already relayed."""
        self._remove_leftovers()
        self._relay([self.trail.log("warning", message)])
        self._numbered_after = self.trail.seq

    def watch(self, process: RunHandle) -> None:
        """Relay and answer the process until it ends, stopping it when it must."""
        if self.deadline is None:
            self.deadline = time.monotonic() + self.timeout_s
        deadline = self.deadline
        grace_ends = None
        while self.report is None:
            try:
                message = process.link.receive(TICK_S)
            except EOFError:  # it ended, and everything it sent was read
                break
            if message is not None:
                self._handle(message, process)
            now = time.monotonic()
            if self.cancel_event.is_set() and self.decided is None:
                # A plain Event is a cancel: only a StopSignal tells of a shutdown.
                shutdown = getattr(self.cancel_event, "shutdown", False)
                self.decided = "shutdown" if shutdown else "cancel"
                self.tell(process, "cancel")
                grace_ends = now + GRACE_S
            if grace_ends is not None and now >= grace_ends:
                return self._stop(process, at_once=False)
            if process.growth() > self.order.budget.memory_bytes + HEADROOM_BYTES:
                self.decided = self.decided or "memory"  # a cancel asked first stays one
                return self._stop(process, at_once=True)
            if now >= deadline:
                self.decided = self.decided or "timeout"
                return self._stop(process, at_once=True)
        if not process.wait(EXIT_WAIT_S):
            self._stop(process, at_once=True)

    def tell(self, process: RunHandle, kind: str, **fields) -> None:
        """Send the process a message, unless it is gone (its socket's end says so next)."""
        with contextlib.suppress(OSError):
            process.link.send(kind, **fields)

    def _handle(self, message: dict, process: RunHandle) -> None:
        kind = message["kind"]
        if kind == "events":
            self._relay(message["events"])
        elif kind == "may_commit":
            allowed = self.decided is None
            self.committed = self.committed or allowed
            self.tell(process, "commit", id=message["id"], allowed=allowed)
        else:
            self.report = message
            if kind == "crashed":
                log.error("run %s crashed:\n%s", self.order.run_id, message["traceback"])

    def _relay(self, events: list[Event]) -> None:
        for event in events:
            if self._numbered_after:
                event = {**event, "seq": event["seq"] + self._numbered_after}
            if event["type"] == "run_finished" and self.decided == "shutdown":
                event = self._shut_down(event)
            if event["type"] == "run_finished" and event["status"] != RunStatus.SUCCEEDED:
                # Before anyone is told the run ended, so nobody sees its leftovers after.
                self._remove_leftovers()
            self.trail.saw(event)
            for sink in self.sinks:
                sink(event)

    def _shut_down(self, finished: Event) -> Event:
        """The end a shutdown gives the run instead of `finished`: none, and a line in its log,
        when it committed nothing (it is queued again); else the shutdown as its error."""
        if finished["status"] == RunStatus.SUCCEEDED:
            return finished
        if self.committed:
            return {**finished, "error": SHUTDOWN_STOPPED}
        self.queued_again = True
        self._remove_leftovers()
        return {**self.trail.log("warning", SHUTDOWN_QUEUED), "seq": finished["seq"]}

    def _stop(self, process: RunHandle, *, at_once: bool) -> None:
        """End the process, then relay what it sent before it ended: all of it happened
        before the decision took effect, and no commit was allowed since."""
        process.stop(at_once=at_once)
        process.wait(EXIT_WAIT_S)
        with contextlib.suppress(EOFError):
            while (message := process.link.receive(0)) is not None:
                self._handle(message, process)

    def ending(self, process: RunHandle) -> Ending:
        """How the run ended, its last events relayed if the process could not send them."""
        if self.queued_again:
            return Ending(RunStatus.QUEUED, SHUTDOWN_QUEUED)
        report = self.report or {"kind": "killed"}
        finished = self.trail.finished
        if finished is None and report["kind"] == "refused" and self.trail.seq == 0:
            return Ending(RunStatus.FAILED, report["error"])  # it never started
        if finished is None:
            return self.end(*self._why(report, process))
        # The run ended itself, whatever the process did next.
        result = self._result(report["result"]) if report["kind"] == "done" else None
        if finished["status"] != RunStatus.SUCCEEDED:
            self._remove_leftovers()  # again: a thread detached at the end may have left one
        return Ending(finished["status"], finished.get("error", ""), result)

    def end(self, status: RunStatus, error: str) -> Ending:
        """End the run here (it could not end itself): no leftovers, then its last events (a
        run that succeeded all the same says in its log why the supervisor ended it)."""
        if status == RunStatus.SUCCEEDED:
            self._relay([self.trail.log("warning", f"run succeeded: {error}")])
        self._relay(self.trail.ending(status, error))
        if self.queued_again:
            return Ending(RunStatus.QUEUED, SHUTDOWN_QUEUED)
        return Ending(status, error)

    def _why(self, report: dict, process: RunHandle) -> tuple[RunStatus, str]:
        """The status and reason of a run that did not end itself."""
        if self.decided == "cancel":
            return RunStatus.CANCELLED, CANCELLED_REASON
        if self.decided == "shutdown":
            return RunStatus.CANCELLED, SHUTDOWN_STOPPED
        if self.decided == "memory":
            return RunStatus.FAILED, (
                f"the run's process was killed: out of memory{self.at_node()} (it grew by "
                f"more than the {size_text(self.order.budget.memory_bytes)} that "
                f"PIPEWRIGHT_RUN_MEMORY allows a run, and {size_text(HEADROOM_BYTES)} for the "
                "engine)"
            )
        if self.decided == "timeout":
            return RunStatus.FAILED, (
                f"the run took longer than the {self.timeout_s:g} s PIPEWRIGHT_RUN_TIMEOUT "
                f"allows and was stopped{self.at_node()}"
            )
        if report["kind"] == "refused":
            return RunStatus.FAILED, report["error"]
        if self.trail.all_succeeded():  # died after the work, before its `run_finished`
            return RunStatus.SUCCEEDED, f"{UNREPORTED} ({process.death('')[1]})"
        if report["kind"] == "crashed":
            return RunStatus.FAILED, CRASHED
        return process.death(self.at_node())

    def _result(self, summary: dict) -> RunResult:
        nodes = {node_id: NodeResult(**fields) for node_id, fields in summary["nodes"].items()}
        return RunResult(
            self.order.run_id, summary["status"], nodes, summary["duration_s"],
            error=summary["error"], totals=summary["totals"],
        )  # fmt: skip

    def at_node(self) -> str:
        """Where the run was, per the events relayed: " at node X", or nothing."""
        running = self.trail.running()
        if not running:
            return ""
        return f" at node{'s' if len(running) > 1 else ''} {', '.join(running)}"

    def _remove_leftovers(self) -> None:
        """Delete the temporary output files, spill folder and staging tables the run's
        process left: a node stopped mid-write (its thread detached, then the process ended),
        or a killed process."""
        area = self.order.area
        run = str(self.order.run_id)

        def this_run(run_id: str) -> bool:
            return run_id == run

        folders = [area.root] + ([area.shared] if area.shared and area.shared_writable else [])
        for folder in folders:
            remove_stale_temporaries(Path(folder), this_run)
        remove_stale_spill_folders(area.scratch_folder, this_run)
        drop_staging_tables(self.plan, run, data_root=area, connections=self.order.connections)


def size_text(count: int) -> str:
    """`count` bytes as messages say it: "200 MiB", "1.5 GiB"."""
    if count >= 2**30:
        return f"{count / 2**30:.1f} GiB"
    return f"{count / 2**20:.0f} MiB"
