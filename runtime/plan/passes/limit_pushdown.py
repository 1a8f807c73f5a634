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

from runtime.io.incremental import is_incremental
from runtime.plan.model import Plan
from runtime.plan.passes.editing import Wiring, copied, only_input, rederived


def push_down_limits(plan: Plan, keep: Iterable[str] = ()) -> Plan:
    """`plan` with each limit moved before the row-wise maps above it."""
    result = copied(plan)
    keep = set(keep)
    wiring = Wiring(result)
    for limit_id in plan.order:
        if plan.nodes[limit_id].operator.name != "limit" or limit_id in keep:
            continue
        while _move(wiring, limit_id, keep):
            pass
        _limit_input(wiring, limit_id, keep)
    return rederived(result) if len(result.notes) > len(plan.notes) else result


def _move(wiring: Wiring, limit_id: str, keep: set[str]) -> bool:
    """Move the limit before the node it reads, if that node is a row-wise map it alone reads."""
    plan = wiring.plan
    (past_id, past_port) = only_input(plan.nodes[limit_id])[1]
    past = plan.nodes[past_id]
    edge = only_input(past)
    movable = past.operator.kind == "process" and past.operator.row_limit_safe
    if not movable or edge is None or past_id in keep or wiring.sole_output(past_id) is None:
        return False
    port, source = edge
    wiring.redirect((limit_id, "out"), (past_id, past_port))
    wiring.connect(limit_id, "in", 0, source)
    wiring.connect(past_id, port, 0, (limit_id, "out"))
    note = f"limit '{limit_id}' moved before '{past_id}'"
    plan.notes.append(note)
    plan.reshaped |= dict.fromkeys([limit_id, past_id], note)
    return True


def _limit_input(wiring: Wiring, limit_id: str, keep: set[str]) -> None:
    """Let the input the limit reads (when it alone reads it) read only the rows it keeps."""
    plan = wiring.plan
    (source_id, _) = only_input(plan.nodes[limit_id])[1]
    source = plan.nodes[source_id]
    exact = source.operator.kind == "input" and source.operator.row_limit_safe
    exact = exact and not is_incremental(source.params)  # its position needs every new row
    if not exact or source_id in keep or wiring.sole_output(source_id) is None:
        return
    rows = plan.nodes[limit_id].params.n
    source.row_limit = rows if source.row_limit is None else min(rows, source.row_limit)
    note = f"limit '{limit_id}' makes '{source_id}' read only {source.row_limit} rows"
    plan.notes.append(note)
    plan.reshaped[source_id] = note
