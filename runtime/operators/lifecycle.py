"""Operators' `open` and `close` within one run: each node opened at most once, closed once.

`open` runs on the worker thread of an attempt, before the operator's `run`, until it has
succeeded once (a failed `open` is that attempt's failure, and a retry opens again). `close`
runs after the node's last attempt has really returned, in the same process: on the worker
thread that ran it (success, failure, a timed-out or cancelled attempt once its thread comes
back) or, for a node stopped while waiting to retry, on a thread of its own. An error in
`close` is logged, never a failure of the node. What a node shares between attempts lives in
`ctx.resources`, one dict per node for the run.

Belongs here: the bookkeeping of opened nodes and the wait for their closes at the end of the
run (at most `CLOSE_WAIT_S`). Does not belong here: when attempts start or stop (executor).
"""

from __future__ import annotations

import threading
from typing import Any

from runtime.operators.context import NodeContext
from runtime.operators.contract import Operator

CLOSE_WAIT_S = 30.0
"""How long the end of a run waits for stopped attempts' threads to return and their nodes to
close; past it the run ends, and a node whose thread returns later closes then, if the process
is still alive."""


def has_lifecycle(operator: Operator) -> bool:
    """Whether an operator implements `open` or `close` (others cost nothing here)."""
    kind = type(operator)
    return kind.open is not Operator.open or kind.close is not Operator.close


class Lifecycles:
    """The opened nodes of one run, and each node's `resources`."""

    def __init__(self, warn):
        self._warn = warn
        """`warn(node_id, message)`: how a failed `close` is reported."""
        self._changed = threading.Condition()
        self._opened: dict[str, tuple[Operator, NodeContext]] = {}
        self._closing = 0
        self._resources: dict[str, dict[str, Any]] = {}

    def resources(self, node_id: str) -> dict[str, Any]:
        """The node's `ctx.resources`, the same dict for every attempt."""
        with self._changed:
            return self._resources.setdefault(node_id, {})

    def open(self, operator: Operator, ctx: NodeContext) -> None:
        """Open the node unless it already is (errors propagate: the attempt fails)."""
        if not has_lifecycle(operator):
            return
        with self._changed:
            if ctx.node_id in self._opened:
                return
        operator.open(ctx)
        with self._changed:
            self._opened[ctx.node_id] = (operator, ctx)

    def is_open(self, node_id: str) -> bool:
        with self._changed:
            return node_id in self._opened

    def close(self, node_id: str) -> None:
        """Close the node if it was opened; call only once its last attempt has returned."""
        with self._changed:
            opened = self._opened.pop(node_id, None)
            if opened is None:
                return
            self._closing += 1
        operator, ctx = opened
        try:
            operator.close(ctx)
        except Exception as error:  # a plugin's bug must not change how the node ended
            self._warn(node_id, f"close failed: {type(error).__name__}: {error}")
        finally:
            with self._changed:
                self._closing -= 1
                self._changed.notify_all()

    def close_soon(self, node_id: str) -> None:
        """Close on a thread of its own: for a node with no attempt running (stopped while
        waiting to retry), from a caller that holds the executor's lock."""
        if self.is_open(node_id):
            threading.Thread(
                target=self.close, args=(node_id,), name="pipewright-close", daemon=True
            ).start()

    def wait(self, timeout_s: float = CLOSE_WAIT_S) -> list[str]:
        """Wait until every opened node has closed, at most `timeout_s`; the nodes still open."""
        with self._changed:
            self._changed.wait_for(lambda: not self._opened and not self._closing, timeout_s)
            return sorted(self._opened)
