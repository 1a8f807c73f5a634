"""Predicate pushdown: a filter moves before the operators it commutes with.

Filtering early means every operator between the old and the new place handles fewer rows.
A filter moves before an operator that keeps every row where it is (so the same rows come out,
in the same order) and passes the filter's columns through unchanged: `transform` when no
mapping writes them, `select` when it does not rename them, `cast` and `fill_nulls` when they
do not touch them, `sort` always, and `window` when they are all partition columns (the
filter keeps or drops whole partitions); into every branch of a `union` whose branches all have
those columns with the type the union gives them; and into the side of a `join` that
provides all of them under the same name and type (either side of an inner join, the left of
a left, semi or anti join, the right of a right join, never an outer join). It never passes
operators that look at other rows (`limit`, `deduplicate`, `aggregate`, `sample`, ...) nor
unknown ones.

Whether a column passes through unchanged is read from the schemas schema inference found
(`schemas`: node → output port → `Schema`); without them, or for a node whose schema is not
known, filters stay where they are. A filter only moves when its columns exist at both places,
so a filter that fails (an unknown column) fails the same way. Nodes in `keep` are looked at:
no filter moves past them, and they do not move.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from runtime.document.spec import Source
from runtime.expressions import referenced_columns
from runtime.plan.model import COPY_MARK, Plan, PlannedNode
from runtime.plan.passes.editing import Wiring, copied, copied_node, only_input, rederived
from runtime.tables.schema import Schema

Schemas = Mapping[str, Mapping[str, Schema]]
STAY = "filters stay in place: no schemas to check their columns against"
Target = tuple[str, int]
"""Where a filter goes: an input port of the operator it moves past, and the edge's position."""


def push_down_predicates(
    plan: Plan, keep: Iterable[str] = (), schemas: Schemas | None = None
) -> Plan:
    """`plan` with each filter moved as far up as it commutes (see the module's docstring)."""
    result = copied(plan)
    if schemas is None:
        if STAY not in result.notes:
            result.notes.append(STAY)
        return result
    known = {node_id: dict(ports) for node_id, ports in schemas.items()}
    keep = set(keep)
    wiring = Wiring(result)
    ranks = {node_id: index for index, node_id in enumerate(plan.order)}
    pending = [node_id for node_id in plan.order if plan.nodes[node_id].operator.name == "filter"]
    while pending:
        filter_id = pending.pop()
        if filter_id in keep:
            continue
        moved = _move(wiring, filter_id, known, keep)
        ranks |= dict.fromkeys(moved, ranks[filter_id])
        pending += moved  # each copy may move further up
    return rederived(result, ranks) if len(result.notes) > len(plan.notes) else result


def _move(wiring: Wiring, filter_id: str, known: dict, keep: set[str]) -> list[str]:
    """Move the filter one operator up if it may: the filters now in its place (or none)."""
    plan = wiring.plan
    node = plan.nodes[filter_id]
    edge = only_input(node)
    if edge is None:
        return []
    (past_id, past_port) = edge[1]
    past = plan.nodes[past_id]
    rule = RULES.get(past.operator.name)
    out = known.get(past_id, {}).get(past_port)
    columns = referenced_columns(node.params.condition)
    if rule is None or past_id in keep or wiring.sole_output(past_id) is None or out is None:
        return []
    if not _has(out, columns, out):
        return []
    sides = {
        port: [_schema(known, source) for source in sources]
        for port, sources in past.inputs.items()
    }
    targets = rule(past, columns, out, sides)
    if not targets:
        return []
    wiring.redirect((filter_id, "out"), (past_id, past_port))
    placed = []
    for number, (port, position) in enumerate(targets, start=1):
        copy_id = filter_id if number == 1 else _free_id(plan, f"{filter_id}{COPY_MARK}{number}")
        if copy_id != filter_id:
            plan.nodes[copy_id] = copied_node(node, id=copy_id, inputs={"in": []})
        source = plan.nodes[past_id].inputs[port][position]
        wiring.connect(copy_id, "in", 0, source)
        wiring.connect(past_id, port, position, (copy_id, "out"))
        known[copy_id] = {"out": _schema(known, source)}
        placed.append(copy_id)
    where = f"before '{past_id}'" if len(placed) == 1 else f"into the branches of '{past_id}'"
    copies = f" (as {', '.join(map(repr, placed))})" if len(placed) > 1 else ""
    note = f"filter '{filter_id}' moved {where}{copies}"
    plan.notes.append(note)
    plan.reshaped |= dict.fromkeys([filter_id, past_id], note)
    return placed


def _schema(known: dict, source: Source) -> Schema | None:
    return known.get(source[0], {}).get(source[1])


def _has(schema: Schema | None, columns: Iterable[str], out: Schema) -> bool:
    """Whether `schema` has each column with the type it has in `out`."""
    if schema is None:
        return False
    return all(
        schema.get(name) is not None and schema.get(name).type == out.get(name).type
        for name in columns
    )


def _free_id(plan: Plan, wanted: str) -> str:
    node_id, number = wanted, 1
    while node_id in plan.nodes or node_id in plan.eliminated or node_id in plan.merged:
        number += 1
        node_id = f"{wanted}.{number}"
    return node_id


Rule = Callable[[PlannedNode, frozenset, Schema, dict], list[Target]]


def _row_wise(untouched: Callable[[PlannedNode, frozenset], bool]) -> Rule:
    """A rule for an operator with one input that keeps every row in place."""

    def rule(node: PlannedNode, columns: frozenset, out: Schema, sides: dict) -> list[Target]:
        passes = untouched(node, columns) and _has(sides["in"][0], columns, out)
        return [("in", 0)] if passes else []

    return rule


def _union(node: PlannedNode, columns: frozenset, out: Schema, sides: dict) -> list[Target]:
    branches = sides["in"]
    if all(_has(schema, columns, out) for schema in branches):
        return [("in", position) for position in range(len(branches))]
    return []


JOIN_SIDES = {
    "inner": ("left", "right"),
    "left": ("left",),
    "right": ("right",),
    "outer": (),
    "semi": ("left",),
    "anti": ("left",),
}
"""Where a join keeps every row of a side unchanged, so a filter on that side may go first
(a condition too reads only the key-matched pairs, which a filter of one side's rows keeps
or drops whole)."""


def _join(node: PlannedNode, columns: frozenset, out: Schema, sides: dict) -> list[Target]:
    params = node.params
    shared = {
        left for left, right in zip(params.left_on, params.right_on, strict=True) if left == right
    }
    if params.how in ("semi", "anti"):  # the left columns, under their own names
        (schema,) = sides["left"]
        return [("left", 0)] if _has(schema, columns, out) else []
    for side in JOIN_SIDES[params.how]:
        (schema,), (other,) = sides[side], sides["right" if side == "left" else "left"]
        suffix = params.suffixes[0 if side == "left" else 1]
        if other is not None and _has(schema, columns, out):
            # A column both sides have (other than a key of the same name) gets the suffix.
            renamed = {name for name in columns if name in other and name not in shared}
            if not (renamed and suffix):
                return [(side, 0)]
    return []


RULES: dict[str, Rule] = {
    "transform": _row_wise(
        lambda node, columns: not columns & {m.target for m in node.params.mappings}
    ),
    "select": _row_wise(
        lambda node, columns: not columns & {*node.params.rename, *node.params.rename.values()}
    ),
    "cast": _row_wise(lambda node, columns: not columns & set(node.params.types)),
    "fill_nulls": _row_wise(lambda node, columns: not columns & set(node.params.values)),
    "sort": _row_wise(lambda node, columns: True),
    "window": _row_wise(lambda node, columns: columns <= set(node.params.partition_by)),
    "union": _union,
    "join": _join,
}
"""The operators a filter may move before, by name, and where it then goes."""
