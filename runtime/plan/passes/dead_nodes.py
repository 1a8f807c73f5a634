"""Dead-node elimination: nodes whose results reach no output are not run.

A node that feeds no output node, directly or through others, does work nobody sees. It is
left out of the plan and recorded in `plan.eliminated` with the reason the run shows. Nodes
in `keep` (a previewed node, whose rows the editor shows) run anyway, with their ancestors. A
pipeline without any output node is run to look at its results, so nothing is removed.
"""

from __future__ import annotations

from collections.abc import Iterable

from runtime.plan.model import Plan
from runtime.plan.passes.editing import copied, rederived

REASON = "reaches no output"


def eliminate_dead_nodes(plan: Plan, keep: Iterable[str] = ()) -> Plan:
    """`plan` without the nodes that reach no output node (nor a node in `keep`)."""
    result = copied(plan)
    roots = {node_id for node_id, node in plan.nodes.items() if node.operator.kind == "output"}
    if not roots:
        result.notes.append("no output node: every node runs, to show its results")
        return result
    live = _with_ancestors(plan, roots | (set(keep) & set(plan.nodes)))
    dead = [node_id for node_id in plan.order if node_id not in live]
    for node_id in dead:
        del result.nodes[node_id]
        result.eliminated[node_id] = REASON
    if not dead:
        return result
    result.notes.append(f"not run ({REASON}): {', '.join(map(repr, dead))}")
    return rederived(result)


def _with_ancestors(plan: Plan, nodes: set[str]) -> set[str]:
    found, stack = set(nodes), list(nodes)
    while stack:
        for parent in plan.predecessors[stack.pop()]:
            if parent not in found:
                found.add(parent)
                stack.append(parent)
    return found
