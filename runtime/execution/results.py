"""What a run produced: each node's result, and the run's outcome computed from them once.

The outcome (status, first error, totals) is settled here and nowhere else: the executor puts
it on `RunResult` and on the `run_finished` event, and the editor's recorder and launcher
only write it down.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from runtime.errors import PipewrightError
from runtime.execution.statuses import NodeStatus, RunStatus
from runtime.lazy import pd
from runtime.plan import Source
from runtime.tables.spilled import SpilledRows


@dataclass(slots=True)
class NodeResult:
    """What happened to one node, with its metrics."""

    node: str
    status: str = NodeStatus.PENDING
    attempts: int = 0
    started: str | None = None
    finished: str | None = None
    duration_s: float | None = None
    rows_in: dict[str, int] = field(default_factory=dict)
    rows_out: int | None = None
    bytes_out: int | None = None
    error: str | None = None
    traceback: str | None = None
    reason: str | None = None
    """Why it ended as it did when that is not its own doing ("downstream of a failure of x")."""
    failed_member: str | None = None
    """For a task of several nodes that failed: the one at fault, when known (`MemberError`)."""
    extra: dict[str, Any] = field(default_factory=dict)

    def metrics(self) -> dict[str, Any]:
        """The figures events and history show; only what the node really did."""
        return {
            "started": self.started,
            "finished": self.finished,
            "duration_s": self.duration_s,
            "attempts": self.attempts,
            "rows_in": dict(self.rows_in),
            "rows_out": self.rows_out,
            "bytes_out": self.bytes_out,
            **self.extra,
        }


@dataclass(slots=True)
class RunResult:
    """The outcome of a run: its status, first error, totals, every node's result, and any
    retained outputs."""

    run_id: str | int
    status: str
    nodes: dict[str, NodeResult]
    duration_s: float
    outputs: dict[Source, pd.DataFrame] = field(default_factory=dict)
    error: str = ""
    """The first failure as "node: message" ("" when none failed)."""
    totals: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == RunStatus.SUCCEEDED


@dataclass(frozen=True, slots=True)
class Outcome:
    """A finished run's status, first error and totals."""

    status: str
    error: str
    totals: dict[str, Any]


def outcome(results: Iterable[NodeResult], kinds: Mapping[str, str], *, cancelled: bool) -> Outcome:
    """The outcome of a run whose nodes ended as `results`; `kinds` gives the kind of each
    node that ran (a merged twin's rows were read or written once, by the node that ran).
    Nodes reused from the result store read and wrote nothing: the totals list them apart,
    and the nodes that ran on pandas where DuckDB could not run them, with why."""
    results = list(results)
    failures = [result for result in results if result.status in NodeStatus.FAILURES]
    if cancelled:
        status = RunStatus.CANCELLED
    elif failures:
        status = RunStatus.FAILED
    else:
        status = RunStatus.SUCCEEDED
    first = min(failures, key=lambda result: result.finished or "", default=None)
    statuses = Counter(str(result.status) for result in results)
    reused = sorted(result.node for result in results if result.extra.get("cached"))
    ran = [result for result in results if result.node not in reused]
    totals = {
        "nodes": dict(sorted(statuses.items())),
        "rows_read": sum(r.rows_out or 0 for r in ran if kinds.get(r.node) == "input"),
        "rows_written": sum(
            rows_written(r) for r in ran
            if kinds.get(r.node) == "output" and r.status == NodeStatus.SUCCEEDED
        ),
        "reused": reused,
        "fallbacks": {r.node: r.extra["fallback"] for r in results if "fallback" in r.extra},
    }  # fmt: skip
    return Outcome(status, "" if first is None else f"{first.node}: {first.error}", totals)


def rows_written(result: NodeResult) -> int:
    """The rows a succeeded output node wrote: its operator's figure, else every row it read."""
    return result.extra.get("rows_written", sum(result.rows_in.values()))


def describe(error: BaseException) -> str:
    """An error as a one-line message: engine errors as they are, others with their type."""
    if isinstance(error, PipewrightError):
        return str(error)
    return f"{type(error).__name__}: {error}"


def frame_bytes(frame: pd.DataFrame | SpilledRows) -> int:
    """The shallow size of a frame's columns (of rows spilled to a file: the file's).

    Reads pandas' block manager because `memory_usage` costs more than the engine's whole
    per-node budget (docs/performance.md); falls back to it if pandas changes its internals.
    """
    if isinstance(frame, SpilledRows):
        return frame.nbytes
    try:
        return int(sum(block.values.nbytes for block in frame._mgr.blocks))
    except AttributeError:
        return int(frame.memory_usage(index=False, deep=False).sum())


def check_outputs(node, outputs) -> None:
    """Refuse what a planned node's `run` returned unless it is a DataFrame per output port
    (or the rows it spilled, when it was given a file to: runtime/execution/streams.py)."""
    operator = node.operator
    if not isinstance(outputs, dict):
        raise TypeError(f"operator '{operator.name}' returned {type(outputs).__name__}, not a dict")
    for port in node.ports.outputs:
        if not isinstance(outputs.get(port.name), pd.DataFrame | SpilledRows):
            raise TypeError(
                f"operator '{operator.name}' returned no DataFrame for output port '{port.name}'"
            )


def retryable(error: BaseException) -> bool:
    """Whether another attempt could succeed: not when the error's class says `retryable =
    False` (bad params, missing columns, refused paths), which the same input fails again."""
    return getattr(error, "retryable", True)
