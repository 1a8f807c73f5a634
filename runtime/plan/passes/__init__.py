"""The optimisation passes: each a pure function from a plan to a better plan.

`optimize` runs them in an order where each helps the next: dead nodes go first (nothing
below spends effort on them), identical nodes are merged, then filters and limits move
towards the inputs. Moving makes nodes identical that were not (the same filter moved before
two branches' transforms now reads the same input twice), so merging and moving repeat until
a round changes nothing (at most `ROUNDS`). Each pass records what it did in `plan.notes`
(for `explain`), one note per change, and nodes left out in `plan.eliminated` /
`plan.merged`. Column pruning (`projection.needed_columns`)
is not a rewrite: the executor asks it which columns each node must produce.
"""

from __future__ import annotations

from collections.abc import Iterable

from runtime.plan.model import Plan
from runtime.plan.passes.common_subexpressions import merge_common_subexpressions
from runtime.plan.passes.dead_nodes import eliminate_dead_nodes
from runtime.plan.passes.limit_pushdown import push_down_limits
from runtime.plan.passes.predicate_pushdown import Schemas, push_down_predicates

__all__ = ["Schemas", "optimize"]

ROUNDS = 8
"""Rounds of merging and moving at most: each finds what the last one made possible, and a
real pipeline settles in two; the bound keeps planning linear in the plan's size whatever
it holds."""


def optimize(plan: Plan, *, keep: Iterable[str] = (), schemas: Schemas | None = None) -> Plan:
    """`plan` after every pass; `keep` nodes run as written (a preview looks at them), and
    `schemas` (node → port → Schema, from schema inference) lets filters move."""
    keep = set(keep)
    plan = eliminate_dead_nodes(plan, keep)
    for _ in range(ROUNDS):
        changes = len(plan.notes)
        plan = merge_common_subexpressions(plan, keep)
        plan = push_down_predicates(plan, keep, schemas)
        plan = push_down_limits(plan, keep)
        if len(plan.notes) == changes:
            break
    return plan
