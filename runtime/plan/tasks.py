"""What the executor schedules: one task per node on pandas, one per segment on DuckDB.

A segment's task reads the frames that enter it from outside, runs its members in one query,
and hands back the outputs read outside it, keyed by the member's (node, port); the executor
then settles every member as if it had run on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from runtime.contract import Operator, OperatorParams, Port
from runtime.graph import Source
from runtime.plan.model import Plan, PlannedNode, Segment


@dataclass(slots=True)
class Tasks:
    nodes: dict[str, PlannedNode]
    """Each task as something the executor runs (a segment's operator runs all its nodes)."""
    order: list[str]
    predecessors: dict[str, set[str]]
    members: dict[str, tuple[str, ...]]
    """The nodes each task settles: itself, or a segment's nodes."""


class SegmentOperator(Operator):
    """Runs a segment's nodes on their backend, in one go."""

    name = "segment"
    kind = "process"
    title = "Segment"

    def __init__(self, segment: Segment, sources: list[Source], exits: list[Source]):
        self.segment = segment
        self.sources = sources
        self.exits = exits
        self.inputs = tuple(Port(str(index)) for index in range(len(sources)))
        self.outputs = ()

    def run(self, ctx, inputs):
        from runtime.backends.duckdb import run_segment

        frames = {source: inputs[str(index)] for index, source in enumerate(self.sources)}
        done = run_segment(self.segment, frames, self.exits, ctx)
        ctx.metrics["members"] = done.members
        return done.outputs


def tasks_of(plan: Plan, retain: set[str]) -> Tasks:
    """The plan's tasks: its segments, and every node outside them."""
    task_of = {node_id: node_id for node_id in plan.order}
    for segment in plan.segments:
        task_of.update(dict.fromkeys(segment.nodes, segment.id))
    nodes = {node_id: plan.nodes[node_id] for node_id in plan.order if task_of[node_id] == node_id}
    members = {node_id: (node_id,) for node_id in nodes}
    for segment in plan.segments:
        nodes[segment.id] = _segment_task(plan, segment, task_of, retain)
        members[segment.id] = segment.nodes
    order = list(dict.fromkeys(task_of[node_id] for node_id in plan.order))
    predecessors = {
        task: {task_of[parent] for member in members[task] for parent in plan.predecessors[member]}
        - {task}
        for task in order
    }
    return Tasks(nodes, order, predecessors, members)


def _segment_task(plan: Plan, segment: Segment, task_of: dict, retain: set[str]) -> PlannedNode:
    inside = set(segment.nodes)
    sources = sorted(
        {
            source
            for member in segment.nodes
            for port_sources in plan.nodes[member].inputs.values()
            for source in port_sources
            if source[0] not in inside
        }
    )
    read_outside = {
        source
        for node_id, node in plan.nodes.items()
        if node_id not in inside
        for port_sources in node.inputs.values()
        for source in port_sources
    }
    exits = [
        (member, port.name)
        for member in segment.nodes
        for port in plan.nodes[member].operator.outputs
        if (member, port.name) in read_outside or member in retain
    ]
    timeouts = [plan.nodes[member].timeout_s for member in segment.nodes]
    return PlannedNode(
        id=segment.id,
        label=f"{segment.backend}: {', '.join(segment.nodes)}",
        operator=SegmentOperator(segment, sources, exits),
        params=OperatorParams(),
        inputs={str(index): [source] for index, source in enumerate(sources)},
        retries=max(plan.nodes[member].retries for member in segment.nodes),
        timeout_s=None if None in timeouts else sum(timeouts),
    )
