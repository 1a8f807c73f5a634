"""Limit pushdown: a limit moves before row-wise maps, and tells an input to read less.

The first n rows of a row-wise map (`row_limit_safe`: select, transform, cast, fill_nulls,
limit) depend only on the first n rows of its input, so taking them first gives the same rows
for less work. When the limit then reads straight from an input operator that reads the head
of its source exactly (`row_limit_safe` on an input: types stored with the data, as in
Parquet), that input reads only n rows (`PlannedNode.row_limit`); the limit stays, and costs
nothing. Nodes in `keep` are looked at: no limit moves past them, and they do not move.
"""

from __future__ import annotations

from collections.abc import Iterable

from runtime.plan.model import Plan
from runtime.plan.passes.editing import copied, copied_node, only_input, rederived, rewire
from runtime.plan.passes.editing import single_output as sole_reader


def push_down_limits(plan: Plan, keep: Iterable[str] = ()) -> Plan:
    """`plan` with each limit moved before the row-wise maps above it."""
    result = copied(plan)
    keep = set(keep)
    for limit_id in plan.order:
        if plan.nodes[limit_id].operator.name != "limit" or limit_id in keep:
            continue
        while _move(result, limit_id, keep):
            result = rederived(result)
        _limit_input(result, limit_id, keep)
    return result


def _move(plan: Plan, limit_id: str, keep: set[str]) -> bool:
    """Move the limit before the node it reads, if that node is a row-wise map it alone reads."""
    node = plan.nodes[limit_id]
    (past_id, past_port) = only_input(node)[1]
    past = plan.nodes[past_id]
    edge = only_input(past)
    movable = past.operator.kind == "process" and past.operator.row_limit_safe
    if not movable or edge is None or past_id in keep or sole_reader(plan, past_id) is None:
        return False
    port, source = edge
    rewire(plan, (limit_id, "out"), (past_id, past_port))
    plan.nodes[limit_id] = copied_node(node, inputs={"in": [source]})
    past.inputs[port] = [(limit_id, "out")]
    plan.notes.append(f"limit '{limit_id}' moved before '{past_id}'")
    return True


def _limit_input(plan: Plan, limit_id: str, keep: set[str]) -> None:
    """Let the input the limit reads (when it alone reads it) read only the rows it keeps."""
    (source_id, _) = only_input(plan.nodes[limit_id])[1]
    source = plan.nodes[source_id]
    exact = source.operator.kind == "input" and source.operator.row_limit_safe
    if not exact or source_id in keep or sole_reader(plan, source_id) is None:
        return
    rows = plan.nodes[limit_id].params.n
    if source.row_limit is not None:
        rows = min(rows, source.row_limit)
    plan.nodes[source_id] = copied_node(source, row_limit=rows)
    plan.notes.append(f"limit '{limit_id}' makes '{source_id}' read only {rows} rows")
