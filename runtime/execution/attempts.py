"""One try at running a node: its inputs, the operator's work, and what a success leaves behind.

The executor decides when an attempt starts, retries or stops; here is what happens to one
once it runs: its input frames taken from the output store, its operator opened and run
outside the executor's lock (and its outputs stored when the plan has a cache), and, when it
succeeded, its figures put on the results and its outputs in the store.

Belongs here: the work of one attempt. Does not belong here: scheduling, deadlines and
cancelling (executor), the backoff between attempts (retries), or how a task's outcome becomes
its nodes' events (node_reports).
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from runtime.execution.data_tests import ChecksFailed, raise_on_failure, run_checks, warnings_of
from runtime.execution.results import NodeResult, check_outputs, frame_bytes, rows_written
from runtime.operators.batches import run_node
from runtime.operators.context import NodeContext
from runtime.plan import PlannedNode, Source
from runtime.tables.spilled import SpilledRows, as_frame

if TYPE_CHECKING:
    from runtime.execution.node_reports import NodeReports
    from runtime.execution.output_store import OutputStore
    from runtime.execution.recording import Recorder
    from runtime.operators.lifecycle import Lifecycles


class Attempt:
    """One try at running a node, with its own context (and so its own stop flag)."""

    __slots__ = ("ctx", "inputs", "node", "number", "recorded", "references", "started")

    def __init__(
        self, node: PlannedNode, number: int, ctx: NodeContext, inputs: dict, references: dict
    ):
        self.node = node
        self.number = number
        self.ctx = ctx
        self.inputs = inputs
        self.references = references
        """The frames of other tasks that its nodes' `references` checks read, by port."""
        self.started: float | None = None
        self.recorded: dict[str, dict] = {}
        """Metrics the result store adds, by node (`results`)."""


def take_inputs(node: PlannedNode, store: OutputStore, result: NodeResult) -> dict[str, Any]:
    """A node's input frames, counted in its `rows_in`; an output nobody else will read is
    dropped from the store."""
    found = {
        port.name: [store.take(source) for source in node.inputs.get(port.name, [])]
        for port in node.ports.inputs
    }
    result.rows_in.update(
        {port: sum(len(frame) for frame in frames) for port, frames in found.items()}
    )
    return node.operator.arranged(node.params, found)


def referenced_by(members: tuple[str, ...], nodes: Mapping[str, PlannedNode]) -> list[Source]:
    """The ports of other tasks that the `references` checks of a task's nodes read."""
    return [
        (check.node, check.to_port)
        for member in members
        for check in (nodes[member].checks if member in nodes else ())
        if check.check == "references" and check.node not in members
    ]


def take_references(
    members: tuple[str, ...], nodes: Mapping[str, PlannedNode], store: OutputStore
) -> dict[Source, Any]:
    """The frames that the `references` checks of a task's nodes read from other tasks."""
    return {source: store.take(source) for source in referenced_by(members, nodes)}


def perform(
    attempt: Attempt,
    lifecycles: Lifecycles,
    recorder: Recorder | None,
    members: tuple[str, ...],
    results: Mapping[str, NodeResult],
    nodes: Mapping[str, PlannedNode],
) -> tuple:
    """Open the node (once), run its operator, check its outputs and run its data tests, then
    store them when the plan has a cache: the outputs, or the error and its traceback."""
    ctx = attempt.ctx
    try:
        lifecycles.open(attempt.node.operator, ctx)
        started = time.perf_counter()
        outputs = run_node(attempt.node.operator, ctx, attempt.inputs)
        computed = time.perf_counter() - started
        check_outputs(attempt.node, outputs)
        _run_data_tests(attempt, outputs, members, nodes)
    except ChecksFailed as error:
        return None, error, None  # its message says it all
    except BaseException as error:
        return None, error, traceback.format_exc()
    if recorder is not None:
        figures = _figures_of(ctx, outputs, results)
        attempt.recorded = recorder.kept(
            attempt.node, outputs, members, ctx.logger, figures, compute_s=computed
        )
        if "position" in ctx.metrics:
            recorder.note_position(attempt.node, ctx.metrics["position"])
    return outputs, None, None


def _run_data_tests(
    attempt: Attempt, outputs: dict, members: tuple[str, ...], nodes: Mapping[str, PlannedNode]
) -> None:
    """Run the checks of the task's nodes on the frames they produced: their results go with
    each node's metrics, a `warn` check that failed logs a warning, a `fail` one raises."""
    ctx = attempt.ctx
    alone = members == (attempt.node.id,)

    def frame_of(node_id: str, port: str):
        found = outputs.get(port if alone and node_id == attempt.node.id else (node_id, port))
        found = attempt.references.get((node_id, port)) if found is None else found
        return None if found is None else as_frame(found)

    for member in members:
        checks = nodes[member].checks if member in nodes else ()
        if not checks:
            continue
        results = run_checks(member, checks, frame_of, ctx.files)
        logger = ctx.logger if alone else ctx.for_node(member, nodes[member].params).logger
        for line in warnings_of(member, results):
            logger.warning(line)
        raise_on_failure(member, results)
        if alone:
            ctx.metrics["checks"] = results
        else:
            figures = ctx.metrics.setdefault("members", {}).setdefault(member, {})
            figures.setdefault("metrics", {})["checks"] = results


def _figures_of(
    ctx: NodeContext, outputs: dict, results: Mapping[str, NodeResult]
) -> Callable[[str], dict]:
    """A finished task's rows in and out of each of its nodes: a segment's operator counts its
    members' (in `ctx.metrics`), the executor a node's own."""
    members = ctx.metrics.get("members")
    if members is None:
        rows_out = sum(len(frame) for frame in outputs.values())
        return lambda node_id: {"rows_in": dict(results[node_id].rows_in), "rows_out": rows_out}
    return lambda node_id: {
        "rows_in": dict(members.get(node_id, {}).get("rows_in", {})),
        "rows_out": members.get(node_id, {}).get("rows_out"),
    }


def keep_success(
    attempt: Attempt,
    outputs: dict,
    results: Mapping[str, NodeResult],
    reports: NodeReports,
    store: OutputStore,
) -> None:
    """Put a succeeded attempt's figures on its results and its outputs in the store."""
    node = attempt.node
    if not reports.is_node(node.id):
        _keep_segment_success(attempt, outputs, reports, store)
        return
    result = results[node.id]
    result.rows_out = sum(len(frame) for frame in outputs.values())
    result.extra = attempt.ctx.metrics
    result.bytes_out = result.extra.pop("bytes_out", None)
    if result.bytes_out is None:
        result.bytes_out = sum(frame_bytes(frame) for frame in outputs.values())
    spilled = [rows.batches for rows in outputs.values() if isinstance(rows, SpilledRows)]
    if spilled:  # handed on in a file, batch by batch (runtime/execution/streams.py)
        result.extra["spilled_batches"] = sum(spilled)
    if node.operator.kind == "output":  # only a node that succeeded says it wrote rows
        result.extra["rows_written"] = rows_written(result)
    result.extra.update(attempt.recorded.get(node.id, {}))
    store.put(node.id, outputs)


def segment_backend(attempt: Attempt) -> tuple[str, str | None]:
    """Where a segment's attempt ran: its backend, or pandas with why (`fallback`)."""
    fallback = attempt.ctx.metrics.get("fallback")
    return attempt.node.operator.segment.backend if fallback is None else "pandas", fallback


def _keep_segment_success(
    attempt: Attempt, outputs: dict, reports: NodeReports, store: OutputStore
) -> None:
    """Each member of a segment gets its own figures; the exits go to the store. A segment
    that ran on pandas instead says so on every member, with why."""
    figures = attempt.ctx.metrics.pop("members", {})
    ran = reports.segment_outputs(attempt.node.id, outputs, figures, *segment_backend(attempt))
    for member, ports in ran.items():
        store.put(member, ports)
    for member, recorded in attempt.recorded.items():
        reports.by_node[member].extra.update(recorded)
