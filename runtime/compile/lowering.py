"""Which segments of a compiled script run on DuckDB, and their statements.

The plan is fused as a run fuses it (`runtime.plan.fusion.fuse`, with the backend asked for:
`auto` looks at how much the inputs hold), over the document's own nodes less the dead ones:
the other passes (filters moved, identical nodes merged) rewrite nodes a script names as the
document does, and DuckDB moves filters inside a query by itself. Each DuckDB segment is
rendered as a run renders it; one that a run would find it must run on pandas (a file
written twice) is left to the pandas emitters, as a run leaves it to pandas.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from runtime.backends.duckdb_reads import check_reads
from runtime.checks.inference import InferredSchemas
from runtime.compile.bound import Rendered, Slot, parameter_slots
from runtime.compile.segments import SegmentSql, segment_sql
from runtime.document.spec import Pipeline
from runtime.errors import NotLowerable
from runtime.execution.tasks import tasks_of
from runtime.io.paths import FileArea
from runtime.operators.registry import Registry
from runtime.plan import Plan, build_plan
from runtime.plan.fusion import fuse
from runtime.plan.passes.dead_nodes import eliminate_dead_nodes


@dataclass
class Lowered:
    """The DuckDB segments of a script, and which of their bound values are parameters."""

    segments: list[SegmentSql] = field(default_factory=list)
    slots: dict[Slot, str] = field(default_factory=dict)


def shown(plan: Plan) -> set[str]:
    """The nodes whose rows a segment must hand back although no node reads them: with no
    output node every node runs to show its results, as in a run, so the script reads the
    last ones into their frames (a segment with nothing to hand back has no statement)."""
    if any(node.operator.kind == "output" for node in plan.nodes.values()):
        return set()
    read = {parent for parents in plan.predecessors.values() for parent in parents}
    return set(plan.nodes) - read


def lowered_segments(
    pipeline: Pipeline,
    plan: Plan,
    backend: str,
    *,
    area: FileArea,
    registry: Registry,
    connections: dict | None,
    inferred: InferredSchemas,
) -> Lowered:
    """The segments of `plan` (the document's live nodes) that run on DuckDB."""
    if backend == "pandas":
        return Lowered()
    defaults = dict(pipeline.config.parameters)

    def schema_of(source):
        node, port = source
        return inferred.nodes[node].outputs[port]

    def render(values: dict[str, Any]) -> Rendered:
        planned = plan
        if values != defaults:
            built = build_plan(pipeline, values, registry, data_root=area)
            planned = eliminate_dead_nodes(built)
        fused = fuse(planned, backend, data_root=area, connections=connections, probe=check_reads)
        tasks = tasks_of(fused, retain=shown(planned))
        found: Rendered = {}
        for segment in fused.segments:
            exits = tasks.nodes[segment.id].operator.exits
            try:
                found[segment.nodes] = segment_sql(segment, exits, area, schema_of)
            except NotLowerable:  # a run finds it too, and runs the segment on pandas
                found[segment.nodes] = None
        return found

    base = render(defaults)
    raw = {node.id: node.params for node in pipeline.nodes}
    members = {
        node_id: (plan.nodes[node_id].operator.kind, raw[node_id])
        for found in base.values()
        if found is not None
        for node_id in found.segment.nodes
    }
    slots = parameter_slots(base, members, defaults, render)
    return Lowered([found for found in base.values() if found is not None], slots)
