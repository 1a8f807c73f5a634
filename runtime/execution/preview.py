"""Previews: the first rows at one node, running only what that node needs.

Only the node's ancestors run, never an output operator (the preview of an output shows what
it would write). When every node on the way is a row-wise map, the row limit is pushed into
the inputs so that a preview of a large file reads only its head. When they are one file input
and a chain of nodes that work row by row, filters among them, the input reads batch by batch
until the chain has the rows shown (runtime/execution/heads.py). Otherwise the inputs are read
in full, because an aggregate or a join over a head would give wrong rows.

Given the keys of the results a run stored (`results`), the preview recomputes a port of that
run: the nearest of those results that the area's store still holds are read instead of
computed (runtime/plan/reuse/boundaries.py), and the answer says which (`read_from_store`) and which
input nodes it read again (`inputs_read`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runtime.cache.store import ResultStore
from runtime.document.spec import Pipeline
from runtime.errors import NodeExecutionError, PipelineValidationError, Problem
from runtime.execution.executor import execute
from runtime.execution.heads import streamed_head
from runtime.execution.statuses import NodeStatus
from runtime.io.paths import FileArea
from runtime.operators.registry import Registry, default_registry
from runtime.plan import build_plan
from runtime.plan.prepare import without_checks
from runtime.plan.reuse.boundaries import Results, from_stored
from runtime.tables.json_rows import json_rows
from runtime.tables.schema import Schema, schema_of

if TYPE_CHECKING:
    from runtime.budget import Budget
    from runtime.io.sql.connection_specs import Connections

DEFAULT_LIMIT = 50
MAX_LIMIT = 10_000


@dataclass(slots=True)
class Preview:
    """The head of one node's output: its schema and JSON-ready rows."""

    node: str
    port: str
    schema: Schema
    rows: list[list[Any]]
    total_rows: int | None
    """Rows the node produced in all, when the preview computed all of them."""
    read_from_store: list[str] = field(default_factory=list)
    """The nodes whose stored results it started from, instead of computing them."""
    inputs_read: list[str] = field(default_factory=list)
    """The input nodes it ran (read their files or databases anew)."""
    rows_read: int | None = None
    """The rows those inputs read, when they say."""

    def to_json(self) -> dict:
        return {
            "node": self.node,
            "port": self.port,
            "columns": self.schema.to_json(),
            "rows": self.rows,
            "total_rows": self.total_rows,
            "read_from_store": self.read_from_store,
            "inputs_read": self.inputs_read,
            "rows_read": self.rows_read,
        }


def preview(
    pipeline: Pipeline,
    node_id: str,
    limit: int = DEFAULT_LIMIT,
    *,
    port: str | None = None,
    parameters: dict[str, Any] | None = None,
    registry: Registry | None = None,
    data_root: FileArea | str | Path = ".",
    connections: Connections | None = None,
    cancel_event: threading.Event | None = None,
    budget: Budget | None = None,
    results: Results | None = None,
) -> Preview:
    """Run the ancestors of `node_id` (and the node, unless it writes) and return its head;
    `budget` as a run's (in a process of its own, what its DuckDB segments may use);
    `results`: a run's stored results to start from, where `data_root`'s store holds them."""
    registry = registry or default_registry()
    target = pipeline.node(node_id)
    if target is None:
        raise PipelineValidationError([Problem(f"there is no node '{node_id}'", field="node")])
    if not 1 <= limit <= MAX_LIMIT:
        raise PipelineValidationError(
            [Problem(f"limit must be between 1 and {MAX_LIMIT}", field="limit")]
        )
    operator = registry.get(target.operator)
    writes = operator is not None and operator.kind == "output"
    needed = _ancestors(pipeline, node_id) | (set() if writes else {node_id})
    subgraph = pipeline.model_copy(
        update={
            "nodes": [node for node in pipeline.nodes if node.id in needed],
            "edges": [e for e in pipeline.edges if e.source in needed and e.target in needed],
        }
    )
    if writes:
        source, port = _single_input(pipeline, node_id)
    else:
        source = node_id
    plan = without_checks(build_plan(subgraph, parameters, registry))  # a head is no test
    if port is None:
        outputs = plan.nodes[source].ports.outputs
        port = outputs[0].name if outputs else "out"
    if port not in {p.name for p in plan.nodes[source].ports.outputs}:
        raise PipelineValidationError(
            [Problem(f"node '{source}' has no output port '{port}'", node=source, field="port")]
        )
    area = FileArea.of(data_root)
    run = _Run(area, connections, cancel_event, budget)
    if results and area.cache is not None:
        started = from_stored(plan, ResultStore(area.cache), results, source)
        try:
            return run.shown(started.plan, started.read, node_id, source, port, limit)
        except NodeExecutionError as error:
            if error.node_id not in started.read or (cancel_event and cancel_event.is_set()):
                raise  # else a stored result went as it was read: from the inputs then
    return run.shown(plan, [], node_id, source, port, limit)


@dataclass(frozen=True)
class _Run:
    """How a preview executes its plan."""

    area: FileArea
    connections: Connections | None
    cancel_event: threading.Event | None
    budget: Budget | None

    def shown(self, plan, read: list[str], node_id: str, source: str, port: str, limit: int):
        """The head of `source`'s `port` once `plan` ran; `read`: the nodes it reads from the
        store."""
        pushed = all(
            node.operator.kind == "input" or node.operator.row_limit_safe
            for node in plan.nodes.values()
        )
        streamed = None
        if not pushed:
            streamed = streamed_head(plan, source, limit, self.area, self.connections)
        if streamed is not None:
            try:
                result = self._executed(streamed[0], source, None)
            except NodeExecutionError:
                if self.cancel_event and self.cancel_event.is_set():
                    raise
                streamed = None  # a file read batch by batch differs: read it whole, as a run
        if streamed is None:
            result = self._executed(plan, source, limit if pushed else None)
        frame = result.outputs[(source, port)]
        head = frame.head(limit)
        inputs = [
            planned
            for planned in plan.order
            if plan.nodes[planned].operator.kind == "input" and planned not in read
        ]
        early = pushed or (streamed is not None and streamed[1][-1].enough)
        total = None if early else len(frame)
        counts = [result.nodes[planned].rows_out for planned in inputs]
        rows_read = None if None in counts else sum(counts)
        return Preview(
            node_id, port, schema_of(head), json_rows(head), total, read, inputs, rows_read
        )

    def _executed(self, plan, source: str, row_limit: int | None):
        """The run of `plan` keeping `source`'s outputs; a node that did not succeed raises."""
        result = execute(
            plan,
            retain=[source],
            row_limit=row_limit,
            data_root=self.area,
            connections=self.connections,
            cancel_event=self.cancel_event,
            budget=self.budget,
        )
        for planned in plan.order:
            failed = result.nodes[planned]
            if failed.status != NodeStatus.SUCCEEDED:
                raise NodeExecutionError(planned, failed.error or failed.status)
        return result


def _ancestors(pipeline: Pipeline, node_id: str) -> set[str]:
    parents: dict[str, set[str]] = {}
    for edge in pipeline.edges:
        parents.setdefault(edge.target, set()).add(edge.source)
    found: set[str] = set()
    stack = [node_id]
    while stack:
        for parent in parents.get(stack.pop(), ()):
            if parent not in found:
                found.add(parent)
                stack.append(parent)
    return found


def _single_input(pipeline: Pipeline, node_id: str) -> tuple[str, str]:
    edges = [edge for edge in pipeline.edges if edge.target == node_id]
    if len(edges) != 1:
        raise PipelineValidationError(
            [
                Problem(
                    "connect exactly one input to preview what it writes",
                    node=node_id,
                    field="inputs.in",
                )
            ]
        )
    return edges[0].source, edges[0].source_port
