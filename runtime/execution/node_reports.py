"""Every node's result, and telling the sinks about it.

The executor settles tasks; a task stands for one node, or for a segment's nodes. Here each
task's outcome becomes its nodes' results and `node_status` events: a segment's members share
its status and duration but keep their own row counts, and a node merged into an identical
one reports that node's result with the reason "computed once with X". A filter that a pass
copied into the branches of a union reports once all its copies have ended, with the figures
it would have without the copies: rows in and out summed over them, and the first failure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runtime.execution.events import now_iso
from runtime.execution.results import NodeResult, frame_bytes
from runtime.execution.statuses import NodeStatus
from runtime.execution.tasks import Tasks
from runtime.plan import Plan
from runtime.plan.model import is_copy, original_of
from runtime.plan.reuse.reuse_pass import REUSED


class NodeReports:
    """The results of a run's nodes, by node id, and the events that tell them."""

    def __init__(self, plan: Plan, tasks: Tasks, results: dict[str, NodeResult], emit: Callable):
        self.members = tasks.members
        self.emit = emit
        self.by_node: dict[str, NodeResult] = {}
        for task, nodes in tasks.members.items():
            for node_id in nodes:
                alone = nodes == (task,)
                self.by_node[node_id] = results[task] if alone else NodeResult(node_id)
        for node_id in [*plan.eliminated, *plan.merged, *plan.reused]:
            self.by_node[node_id] = NodeResult(node_id)
        self.fallbacks = plan.fallbacks
        """Nodes the plan leaves to pandas under a backend that lowers, with why."""
        self.cache = plan.cache
        self.cached = set(plan.cache.reading) if plan.cache is not None else set()
        """Nodes that run as reads of their stored results: reported as reused."""
        self.aliases: dict[str, list[str]] = {}
        for alias, kept in plan.merged.items():
            self.aliases.setdefault(kept, []).append(alias)
        self.copies: dict[str, list[str]] = {}
        """A document's node → the copies a pass made of it (it reports for them all)."""
        for node_id in self.by_node:
            if is_copy(node_id):
                self.copies.setdefault(original_of(node_id), []).append(node_id)
        self.told: set[str] = set()
        """The nodes with copies whose final figures went out."""

    def reported(self) -> dict[str, NodeResult]:
        """The results of the document's nodes (not of the copies passes made)."""
        return {node_id: result for node_id, result in self.by_node.items() if not is_copy(node_id)}

    def is_node(self, task: str) -> bool:
        """Whether a task runs one node on its own (not a segment)."""
        return task in self.by_node

    def status(self, task: str, status: NodeStatus, attempt: int, emit=None, **fields) -> None:
        """A passing status (queued, running, retrying) of every node of `task`."""
        for node_id in self.members[task]:
            self.by_node[node_id].status = status
            if is_copy(node_id):
                continue
            (emit or self.emit)(
                "node_status", node=node_id, status=status, attempt=attempt, **fields
            )

    def left_out(self, node_id: str, reason: str) -> None:
        """A node the plan does not run: skipped, with the plan's reason."""
        result = self.by_node[node_id]
        result.status, result.reason, result.finished = NodeStatus.SKIPPED, reason, now_iso()
        self._report(node_id, result)

    def reused(self, node_id: str, results: dict[str, str]) -> None:
        """A node the plan does not run because stored results stand for it: succeeded."""
        result = self.by_node[node_id]
        result.status, result.finished = NodeStatus.SUCCEEDED, now_iso()
        result.extra = {"cached": True, **({"results": dict(results)} if results else {})}
        result.rows_in, result.rows_out = self._stored_figures(node_id)
        if "out" in results:
            result.rows_out = self.cache.store.rows(results["out"])
            record = self.cache.store.record(results["out"])
            if "position" in record:  # an incremental input's, as the run that stored it read
                result.extra["position"] = record["position"]
        self._report(node_id, result, reason=REUSED)

    def _stored_figures(self, node_id: str) -> tuple[dict[str, int], int | None]:
        """A reused node's rows in and out, as the run that stored its results counted them."""
        key = self.cache.keys.nodes.get(node_id)
        record = self.cache.store.record(key) if key else {}
        return dict(record.get("rows_in", {})), record.get("rows_out")

    def segment_outputs(
        self, task: str, outputs: dict, figures: dict, backend: str, fallback: str | None = None
    ) -> dict:
        """A succeeded segment's exits by member, after giving each member its own figures."""
        by_member: dict[str, dict] = {}
        for member in self.members[task]:
            result = self.by_node[member]
            figure = figures.get(member, {})
            result.rows_in = dict(figure.get("rows_in", {}))
            result.rows_out = figure.get("rows_out")
            ports = {port: frame for (node_id, port), frame in outputs.items() if node_id == member}
            result.bytes_out = figure.get("bytes_out")  # an output's file
            if result.bytes_out is None:
                result.bytes_out = sum(frame_bytes(frame) for frame in ports.values()) or None
            result.extra = dict(figure.get("metrics", {}))
            by_member[member] = ports
        self.segment_ran_on(task, backend, fallback)
        return by_member

    def segment_ran_on(self, task: str, backend: str, fallback: str | None = None) -> None:
        """Each member of segment `task`, succeeded or failed, says where it ran (`fallback`:
        why on pandas instead of the segment's backend)."""
        for member in self.members[task]:
            extra = self.by_node[member].extra
            extra.update(segment=task, backend=backend)
            if fallback is not None:
                extra["fallback"] = fallback

    def settled(self, task: str, result: NodeResult) -> None:
        """`task` ended as `result`: tell how each of its nodes ended. When one node of a
        segment is known to have failed it, only that node failed; the others did not finish."""
        members = self.members[task]
        at_fault = result.failed_member if result.failed_member in members else None
        for node_id in members:
            if at_fault is not None and node_id != at_fault:
                self._not_finished(node_id, result, len(members), f"{at_fault} failed, and {task}")
            else:
                self._report(node_id, result, share=len(members))

    def _not_finished(self, node_id: str, outcome: NodeResult, share: int, why: str) -> None:
        """A segment's member that another member's failure stopped: skipped, saying why."""
        result = self.by_node[node_id]
        _take_outcome(result, outcome, share)
        result.status, result.error, result.traceback = NodeStatus.SKIPPED, None, None
        self._report(node_id, result, reason=f"not finished: {why} runs them as one query")

    def _report(
        self, node_id: str, outcome_of: NodeResult, share: int = 1, reason: str | None = None
    ) -> None:
        result = self.by_node[node_id]
        if result is not outcome_of:
            _take_outcome(result, outcome_of, share)
        result.reason = reason or result.reason
        if node_id in self.fallbacks and result.started is not None:  # it ran, on pandas
            result.extra.update(backend="pandas", fallback=self.fallbacks[node_id])
        if node_id in self.cached and result.status == NodeStatus.SUCCEEDED:
            result.reason = REUSED
            result.extra["cached"] = True
            result.rows_in = self._stored_figures(node_id)[0]
        original = original_of(node_id)
        if original in self.copies:
            if original in self.told or not self._gathered(original):
                return
            node_id, result = original, self.by_node[original]
        fields: dict[str, Any] = {"metrics": result.metrics()}
        if result.error is not None:
            fields.update(error=result.error, traceback=result.traceback)
        if result.reason is not None:
            fields.update(reason=result.reason)
        self.emit(
            "node_status", node=node_id, status=result.status, attempt=result.attempts, **fields
        )
        for alias in self.aliases.get(node_id, ()):
            twin = self.by_node[alias]
            twin.rows_in, twin.rows_out = dict(result.rows_in), result.rows_out
            twin.bytes_out, twin.extra = result.bytes_out, dict(result.extra)
            self._report(alias, result, reason=f"computed once with {node_id}")

    def _gathered(self, original: str) -> bool:
        """Once `original` and its copies have all ended: give it their combined outcome."""
        parts = [self.by_node[node_id] for node_id in (original, *self.copies[original])]
        if any(part.status not in NodeStatus.FINAL for part in parts):
            return False
        self.told.add(original)
        result = parts[0]
        failed = [part for part in parts if part.status in NodeStatus.FAILURES]
        unfinished = [part for part in parts if part.status != NodeStatus.SUCCEEDED]
        worst = (failed or unfinished or [result])[0]
        if worst is not result:
            result.status, result.reason = worst.status, worst.reason
            result.error, result.traceback = worst.error, worst.traceback
        ports = set.intersection(*(set(part.rows_in) for part in parts))
        result.rows_in = {port: sum(part.rows_in[port] for part in parts) for port in sorted(ports)}
        result.rows_out = _total(part.rows_out for part in parts)
        result.bytes_out = _total(part.bytes_out for part in parts)
        result.duration_s = _total(part.duration_s for part in parts)
        return True


def _total(values) -> int | float | None:
    """The sum, or None when a value is not known."""
    values = list(values)
    return None if None in values else sum(values)


def _take_outcome(result: NodeResult, source: NodeResult, share: int) -> None:
    """Copy how `source` ended onto `result`; a segment's duration is shared by its nodes."""
    result.status, result.reason, result.finished = source.status, source.reason, source.finished
    result.started, result.attempts = source.started, source.attempts
    result.error, result.traceback = source.error, source.traceback
    if source.duration_s is not None:
        result.duration_s = round(source.duration_s / share, 6)
