"""From a checked document to its plan: one task per node, in an order that runs parents first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runtime.checks.analysis import analyse
from runtime.document.spec import Pipeline
from runtime.errors import PipelineValidationError
from runtime.io.paths import FileArea
from runtime.operators.registry import Registry
from runtime.plan.model import Plan, PlannedNode, count_consumers


def build_plan(
    pipeline: Pipeline,
    parameters: dict[str, Any] | None = None,
    registry: Registry | None = None,
    *,
    data_root: FileArea | str | Path | None = None,
) -> Plan:
    """Validate the document with the run's parameter values and return its plan (not yet
    optimised: `optimize` runs the passes)."""
    analysis = analyse(pipeline, parameters, registry, data_root=data_root)
    if analysis.problems:
        raise PipelineValidationError(analysis.problems)
    config = pipeline.config
    nodes = {
        node.id: PlannedNode(
            id=node.id,
            label=node.label,
            operator=analysis.operators[node.id],
            params=analysis.params[node.id],
            inputs=analysis.inputs[node.id],
            retries=config.retries if node.retries is None else node.retries,
            timeout_s=config.timeout_s if node.timeout_s is None else node.timeout_s,
            checks=tuple(node.expect),
        )
        for node in pipeline.nodes
    }
    return Plan(
        pipeline.name,
        config,
        analysis.values,
        nodes,
        analysis.order,
        analysis.predecessors,
        count_consumers(nodes),
    )
