"""Limit pushdown: a limit moves before row-wise maps, and tells an input to read less.

The first n rows of a row-wise map (`row_limit_safe`: select, transform, cast, fill_nulls,
limit) depend only on the first n rows of its input, so taking them first gives the same rows
for less work. When the limit then reads straight from an input operator that reads the head
of its source exactly (`row_limit_safe` on an input: types stored with the data, as in
Parquet), that input reads only n rows (`PlannedNode.row_limit`); the limit stays, and costs
nothing. Nodes in `keep` are looked at: no limit moves past them, and they do not move.

The pass works a chain at a time, not a limit at a time: the maps a limit may pass form
chains (each map read by the next alone), and every limit in or just below a chain ends at
its top, limits in their order, then the chain's other maps in theirs. A limit never passes
another (limits commute, so that would change nothing), and a chain is rewired once, so a
plan of n nodes costs O(n) whatever its limits and maps alternate.
"""

from __future__ import annotations

from collections.abc import Iterable

from runtime.io.incremental import is_incremental
from runtime.plan.model import Plan, PlannedNode
from runtime.plan.passes.editing import Wiring, copied, only_input, rederived


def push_down_limits(plan: Plan, keep: Iterable[str] = ()) -> Plan:
    """`plan` with each limit moved before the row-wise maps above it."""
    result = copied(plan)
    keep = set(keep)
    wiring = Wiring(result)
    for chain in _chains(wiring, keep):
        _gather(wiring, chain)
        _limit_input(wiring, [node for node in chain if _is_limit(result.nodes[node])], keep)
    return rederived(result) if len(result.notes) > len(plan.notes) else result


def _is_limit(node: PlannedNode) -> bool:
    return node.operator.name == "limit"


def _chains(wiring: Wiring, keep: set[str]) -> list[list[str]]:
    """The chains a limit may move along, parents first, each with at least one limit: the maps
    others may pass (`_passable`), each read by the next, and a limit below the last one that
    other nodes may not pass (read by several)."""
    plan = wiring.plan
    head: dict[str, str] = {}  # a passable node → the first node of its chain
    chains: dict[str, list[str]] = {}
    for node_id in plan.order:
        node = plan.nodes[node_id]
        passable = _passable(wiring, node_id, keep)
        if not passable and not (_is_limit(node) and node_id not in keep):
            continue
        parent = only_input(node)[1][0]
        start = head.get(parent, node_id)
        if passable:
            head[node_id] = start
        chains.setdefault(start, []).append(node_id)
    return [chain for chain in chains.values() if any(_is_limit(plan.nodes[n]) for n in chain)]


def _passable(wiring: Wiring, node_id: str, keep: set[str]) -> bool:
    """Whether a limit may move before `node_id`: a row-wise map with one input, that only
    one node reads, and that nobody looks at."""
    node = wiring.plan.nodes[node_id]
    movable = node.operator.kind == "process" and node.operator.row_limit_safe
    return (
        movable
        and node_id not in keep
        and only_input(node) is not None
        and wiring.sole_output(node_id) is not None
    )


def _gather(wiring: Wiring, chain: list[str]) -> None:
    """Rewire `chain` as its limits, then its other maps, each in its order; note each limit
    that moved and mark what it passed as reshaped."""
    plan = wiring.plan
    limits = [node_id for node_id in chain if _is_limit(plan.nodes[node_id])]
    maps = [node_id for node_id in chain if not _is_limit(plan.nodes[node_id])]
    if not maps or chain[: len(limits)] == limits:
        return  # the limits are at the top already
    moved: dict[str, str] = {}
    passed: list[str] = []
    for node_id in chain:  # parents first: the maps above each limit are the ones it passes
        if not _is_limit(plan.nodes[node_id]):
            passed.append(node_id)
        elif passed:
            more = f" (past {len(passed)} row-wise nodes)" if len(passed) > 1 else ""
            moved[node_id] = f"limit '{node_id}' moved before '{passed[0]}'{more}"
            plan.notes.append(moved[node_id])
    plan.reshaped |= moved
    reason = None
    for node_id in reversed(chain):  # a map takes the reason of the nearest limit that passed it
        if node_id in moved:
            reason = moved[node_id]
        elif reason and not _is_limit(plan.nodes[node_id]):
            plan.reshaped[node_id] = reason
    last, new_last = chain[-1], (limits + maps)[-1]
    if new_last != last:
        wiring.redirect(_output(plan.nodes[last]), _output(plan.nodes[new_last]))
    source = only_input(plan.nodes[chain[0]])[1]
    for node_id in limits + maps:
        wiring.connect(node_id, only_input(plan.nodes[node_id])[0], 0, source)
        source = _output(plan.nodes[node_id])


def _output(node: PlannedNode) -> tuple[str, str]:
    return (node.id, node.ports.outputs[0].name)


def _limit_input(wiring: Wiring, limits: list[str], keep: set[str]) -> None:
    """Let the input the top limit reads (when they alone read it) read only the rows the
    limits keep; a limit above the smallest then gets fewer rows than written: reshaped."""
    plan = wiring.plan
    (source_id, _) = only_input(plan.nodes[limits[0]])[1]
    source = plan.nodes[source_id]
    exact = source.operator.kind == "input" and source.operator.row_limit_safe
    exact = exact and not is_incremental(source.params)  # its position needs every new row
    if not exact or source_id in keep or wiring.sole_output(source_id) is None:
        return
    smallest = min(limits, key=lambda node_id: plan.nodes[node_id].params.n)
    rows = plan.nodes[smallest].params.n
    if source.row_limit is not None and source.row_limit <= rows:
        return  # an earlier round said so
    source = wiring.own(source_id)
    source.row_limit = rows
    note = f"limit '{smallest}' makes '{source_id}' read only {source.row_limit} rows"
    plan.notes.append(note)
    plan.reshaped[source_id] = note
    for node_id in limits:
        if plan.nodes[node_id].params.n <= source.row_limit:
            break  # it and the limits below it keep the rows the document gives them
        plan.reshaped.setdefault(node_id, note)
