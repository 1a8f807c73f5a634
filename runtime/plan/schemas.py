"""The columns each node of a plan will see, found as schema inference finds them.

The passes need them (a filter moves only where its columns exist with the same types) and so
does lowering (an expression compiles to SQL against its input's columns). A node whose
columns cannot be known before the run (a plugin that cannot say, a file that is missing)
simply has none, and nothing is decided from it; why is logged, once per operator class and
error class, so that a plugin's broken `output_schema` is seen without a line per plan.
"""

from __future__ import annotations

import logging

from runtime.checks.loops import output_schemas_of
from runtime.io.paths import FileArea
from runtime.operators.context import NodeContext
from runtime.operators.contract import InputSchemas
from runtime.plan.model import Plan, PlannedNode
from runtime.tables.schema import Schema

OutputSchemas = dict[str, dict[str, Schema] | None]
"""node → port → Schema, or None for a node whose columns are not known."""

log = logging.getLogger(__name__)

_logged: set[tuple[type, type]] = set()
"""The (operator class, error class) pairs whose unknown columns were logged already."""


def output_schemas(plan: Plan, data_root: FileArea, connections=None) -> OutputSchemas:
    """Each node's output schemas, in the plan's order (input nodes read a small sample)."""
    outputs: OutputSchemas = {}
    for node_id in plan.order:
        node = plan.nodes[node_id]
        found = _inputs_of(node, outputs)
        if found is None:
            outputs[node_id] = None
            continue
        ctx = NodeContext(node_id, node.params, data_root=data_root, connections=connections)
        try:
            outputs[node_id] = dict(output_schemas_of(node.operator, ctx, found))
        except Exception as error:
            _log_once(node, error)
            outputs[node_id] = None
    return outputs


def _log_once(node: PlannedNode, error: Exception) -> None:
    """Say why a node's columns are unknown, the first time its operator fails this way.
    NotImplementedError is an operator saying it cannot tell (debug); anything else, a
    warning."""
    key = (type(node.operator), type(error))
    if key in _logged:
        return
    _logged.add(key)
    level = logging.DEBUG if isinstance(error, NotImplementedError) else logging.WARNING
    log.log(
        level,
        "columns of node '%s' (%s) unknown to the planner: output_schema raised %s: %s "
        "(logged once per operator and error class)",
        node.id, node.operator.name, type(error).__name__, error,
    )  # fmt: skip


def input_schemas(plan: Plan, outputs: OutputSchemas) -> dict[str, InputSchemas | None]:
    """Each node's input schemas by port, from its parents' outputs."""
    return {node_id: _inputs_of(plan.nodes[node_id], outputs) for node_id in plan.order}


def _inputs_of(node: PlannedNode, outputs: OutputSchemas) -> InputSchemas | None:
    found = {
        port: [(outputs.get(source) or {}).get(name) for source, name in sources]
        for port, sources in node.inputs.items()
    }
    if any(schema is None for schemas in found.values() for schema in schemas):
        return None
    return node.operator.arranged(node.params, found)
