"""The optimisation passes: each a pure function from a plan to a better plan.

`optimize` runs them in an order where each helps the next: dead nodes go first (nothing
below spends effort on them), identical nodes are merged, then filters and limits move
towards the inputs. Each pass records what it did in `plan.notes` (for `explain`), and nodes
left out in `plan.eliminated` / `plan.merged`. Column pruning (`projection.needed_columns`)
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


def optimize(plan: Plan, *, keep: Iterable[str] = (), schemas: Schemas | None = None) -> Plan:
    """`plan` after every pass; `keep` nodes run as written (a preview looks at them), and
    `schemas` (node → port → Schema, from schema inference) lets filters move."""
    keep = set(keep)
    plan = eliminate_dead_nodes(plan, keep)
    plan = merge_common_subexpressions(plan, keep)
    plan = push_down_predicates(plan, keep, schemas)
    return push_down_limits(plan, keep)
