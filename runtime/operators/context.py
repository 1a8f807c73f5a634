"""What an operator sees of the run: `ctx`.

It gives the run and node ids, the validated params, the file area and named connections, a
logger and a progress callback that become events, and the cancellation check. `commit` is how
an output makes its work visible (rename a temporary file, commit a transaction): it runs under
a lock against the executor's timeout and cancel decisions, so a node that lost its race with
the clock never commits afterwards, and only if `may_commit` agrees: a run in a process of its
own asks its supervisor, which refuses once it has decided to stop the run.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from runtime.errors import NodeCancelled
from runtime.io.paths import FileArea

if TYPE_CHECKING:
    from runtime.io.sql.connection_specs import Connections

LEVELS = {"debug": 10, "info": 20, "warning": 30, "error": 40}
PROGRESS_INTERVAL_S = 0.05

Emit = Callable[..., Any]


def _ignore(*_args, **_fields) -> None:
    return None


def _always() -> bool:
    return True


class NodeLogger:
    """`ctx.logger`: log lines that become `node_log` events at or above the pipeline's level."""

    def __init__(self, emit: Emit, node_id: str, level: str):
        self._emit = emit
        self._node_id = node_id
        self._threshold = LEVELS[level]

    def log(self, level: str, message: str) -> None:
        if LEVELS[level] >= self._threshold:
            self._emit("node_log", node=self._node_id, level=level, message=str(message))

    def debug(self, message: str) -> None:
        self.log("debug", message)

    def info(self, message: str) -> None:
        self.log("info", message)

    def warning(self, message: str) -> None:
        self.log("warning", message)

    def error(self, message: str) -> None:
        self.log("error", message)


class HeadProbe:
    """What an input read only as far as a preview needs is given (`NodeContext.head`): each
    batch it reads, in order (`take`), and whether the batches so far are enough (`enough`).
    An input that reads whole tables rather than batches may ignore it."""

    enough: bool = False

    def take(self, batch) -> None:
        """One more batch read (a `pyarrow.RecordBatch`)."""
        raise NotImplementedError


class NodeContext:
    """The run-time services handed to `Operator.run` and `Operator.output_schema`."""

    def __init__(
        self,
        node_id: str,
        params: BaseModel,
        *,
        data_root: FileArea | Path,
        connections: Connections | None = None,
        emit: Emit | None = None,
        log_level: str = "info",
        row_limit: int | None = None,
        columns: set[str] | None = None,
        run_id: str | int | None = None,
        may_commit: Callable[[], bool] | None = None,
        resources: dict[str, Any] | None = None,
        position: Any = None,
        head: HeadProbe | None = None,
        spill_path: Path | None = None,
    ):
        self.node_id = node_id
        self.run_id = str(run_id) if run_id is not None else uuid.uuid4().hex
        """The run's id (a context made outside a run gets one of its own); it names the
        run's temporary output files."""
        self.params = params
        self.files = FileArea.of(data_root)
        self.data_root = self.files.root
        self.connections = dict(connections or {})
        self.row_limit = row_limit
        self.columns = columns
        """Of the node's output, the columns anything downstream reads (None: all of them);
        an input operator may read only these (column pruning)."""
        self.metrics: dict[str, Any] = {}
        self.resources: dict[str, Any] = {} if resources is None else resources
        """What the node's `open` acquired for all its attempts (the same dict for each)."""
        self.position = position
        """For an incremental input: where the last successful run stopped reading (JSON
        data; None: read everything). The new position goes to `metrics["position"]`."""
        self.head = head
        """For an input a preview reads only until the rows below it suffice: told each batch
        read, says when to stop (runtime/execution/heads.py); None: read on."""
        self.spill_path = spill_path
        """For an input that only DuckDB segments read: a file to write its rows to batch by
        batch and hand on as `SpilledRows` (runtime/tables/spilled.py), if the operator
        `spills`; None: hand on a frame."""
        self._cancel = threading.Event()
        self._on_stop: list[Callable[[], Any]] = []
        self._commit_lock = threading.RLock()
        self._may_commit = may_commit or _always
        self.committed = False
        self._emit = emit or _ignore
        self.log_level = log_level
        self.logger = NodeLogger(self._guarded_emit, node_id, log_level)
        self._last_progress = 0.0
        self._rows_before = 0

    def for_node(self, node_id: str, params: BaseModel) -> NodeContext:
        """A context for one node of the segment this context runs: the same run, files and
        connections, its events under its own id, and stopped when this one is."""
        member = NodeContext(
            node_id, params, data_root=self.files, connections=self.connections,
            emit=self._guarded_emit, log_level=self.log_level, run_id=self.run_id,
            may_commit=self._may_commit,
        )  # fmt: skip
        self.on_stop(member.stop)
        return member

    @property
    def cancelled(self) -> bool:
        """True once the run was cancelled or this attempt's deadline passed."""
        return self._cancel.is_set()

    def check_cancelled(self) -> None:
        """Raise `NodeCancelled` if the node should stop; call it between chunks of work."""
        if self._cancel.is_set():
            raise NodeCancelled(f"node '{self.node_id}' was stopped")

    def resolve_path(self, path: str, *, write: bool = False) -> Path:
        """A params path resolved in the node's file area (refusing paths that escape it, and
        writes to the read-only shared folder)."""
        return self.files.resolve(path, write=write)

    def progress(
        self,
        rows: int | None = None,
        *,
        share: float | None = None,
        iterations: tuple[int, int] | None = None,
    ) -> None:
        """Report rows processed so far, or the share of the work done (0 to 1) when the
        rows are not known but an estimate is (a DuckDB query), with a loop's `iterations`
        (done, total); at most one event per `PROGRESS_INTERVAL_S`, but always the last
        iteration's."""
        if rows is None and share is None:
            raise ValueError(f"node '{self.node_id}': progress needs rows or a share done")
        now = time.monotonic()
        last = iterations is not None and iterations[0] == iterations[1]
        if last or now - self._last_progress >= PROGRESS_INTERVAL_S:
            self._last_progress = now
            fields: dict[str, Any] = {}
            if rows is not None:
                fields["rows"] = self._rows_before + int(rows)
            if share is not None:
                fields["share"] = min(max(float(share), 0.0), 1.0)
            if iterations is not None:
                fields["iterations"] = list(iterations)
            self._guarded_emit("node_progress", node=self.node_id, **fields)

    @contextmanager
    def counting_after(self, rows: int) -> Iterator[None]:
        """While the block runs, the rows `progress` reports count on from `rows`: an input
        reading several files reports the rows of all of them so far."""
        before, self._rows_before = self._rows_before, rows
        try:
            yield
        finally:
            self._rows_before = before

    def may_commit(self) -> bool:
        """Whether the run may still make outputs visible (in a process of its own: whether
        its supervisor has not decided to stop it)."""
        return self._may_commit()

    def commit(self, action: Callable[[], Any]) -> Any:
        """Make the node's side effect visible, unless it was stopped first."""
        # Asked before taking the lock: `stop` must not wait for the supervisor's answer.
        if not self.may_commit():
            raise NodeCancelled(f"node '{self.node_id}' may not commit: the run is being stopped")
        with self._commit_lock:
            self.check_cancelled()
            result = action()
            self.committed = True
            return result

    def stop(self) -> bool:
        """Tell the node to stop; False if it already committed (then it must finish)."""
        with self._commit_lock:
            if self.committed:
                return False
            self._cancel.set()
            callbacks = list(self._on_stop)
        for callback in callbacks:
            callback()
        return True

    def on_stop(self, callback: Callable[[], Any]) -> None:
        """Call `callback` when the node is told to stop (at once if it was already): how
        work that does not look at `cancelled`, such as a database query, is interrupted."""
        with self._commit_lock:
            stopped = self._cancel.is_set()
            if not stopped:
                self._on_stop.append(callback)
        if stopped:
            callback()

    def _guarded_emit(self, event_type: str, **fields) -> None:
        # Under the lock that `stop` takes, so nothing is emitted after the node's final status.
        with self._commit_lock:
            if not self._cancel.is_set():
                self._emit(event_type, **fields)
