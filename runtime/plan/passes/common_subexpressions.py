"""Common-subexpression elimination: identical nodes are computed once.

Two nodes with the same operator, the same validated params (after `${parameter}`
substitution), the same retry and timeout settings and the same inputs give the same rows;
the later one (the alias) is left out, its consumers read the kept node's output, and
`plan.merged[alias]` names the node that runs. Walking in parents-first order and rewiring as
it goes, merged parents make their children identical before the children are compared, so
one walk reaches the fixpoint. Outputs (side effects) and non-deterministic operators are
never merged, nor nodes in `keep`, whose own result is looked at, nor a pass's copies.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from runtime.io.incremental import is_incremental
from runtime.plan.model import Plan, PlannedNode, is_copy
from runtime.plan.passes.editing import Wiring, copied, rederived


def merge_common_subexpressions(plan: Plan, keep: Iterable[str] = ()) -> Plan:
    """`plan` with every node identical to an earlier one replaced by that one."""
    result = copied(plan)
    keep = set(keep)
    wiring = Wiring(result)
    seen: dict[str, str] = {}
    for node_id in plan.order:
        node = result.nodes[node_id]
        if not _mergeable(node) or node_id in keep:
            continue
        kept = seen.setdefault(_identity(node), node_id)
        if kept == node_id:
            continue
        for port in node.ports.outputs:
            wiring.redirect((node_id, port.name), (kept, port.name))
        wiring.forget(node_id)
        del result.nodes[node_id]
        result.merged[node_id] = kept
        result.notes.append(f"'{node_id}' computed once with '{kept}'")
    return rederived(result) if result.merged != plan.merged else result


def _mergeable(node: PlannedNode) -> bool:
    # An incremental input reports its own position: two of them are never one; nor is a
    # pass's copy of a node (a filter copied into a union's branches), whose rows its
    # original reports with its own.
    operator = node.operator
    if operator.kind == "output" or not operator.deterministic or is_copy(node.id):
        return False
    return not is_incremental(node.params)


def _identity(node: PlannedNode) -> str:
    """What makes two nodes give the same result, as one comparable text."""
    return json.dumps(
        [
            node.operator.name,
            node.params.model_dump(mode="json"),
            sorted(node.inputs.items()),
            node.retries,
            node.timeout_s,
            node.row_limit,
        ],
        sort_keys=True,
        default=str,
    )
