"""Parts of a segment that several of its queries read, computed once into a temporary table.

A segment runs one query per exit, and each query computes everything its exit needs. When
two exits share an upstream part that is costly to compute again (it parses a CSV file, or
joins, aggregates or deduplicates), the part runs once instead, into a TEMP TABLE of the
session (which spills into the run's spill folder past the memory limit); the queries that
read it read the table, and the table is dropped after the last of them. The table keeps the
part's rows in their stream order (the session preserves insertion order) and the hidden
columns that carry any other order. A part read by one query only, or cheap to compute again
(frames and Parquet files, row by row), stays inside the queries, where DuckDB streams it.
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from runtime import relational as rel


@dataclass(frozen=True)
class Step:
    """One query of a segment: an exit, or a part computed into `table`."""

    relation: rel.Relation
    table: str | None = None
    done_with: tuple[str, ...] = ()
    """The tables no later step reads (dropped once this one has run)."""


def steps(exits: Sequence[rel.Relation], token: str | None = None) -> list[Step]:
    """The queries that compute `exits`: the shared parts first (each before what reads it);
    the tables' names end in `token` (random by default)."""
    parts = shared_parts(exits)
    token = token or secrets.token_hex(4)
    tables = {part: f"__pw_part{index}_{token}" for index, part in enumerate(parts, start=1)}
    roots = [*parts, *exits]
    last_reader = {}
    for index, root in enumerate(roots):
        computing = {root} if index < len(parts) else set()  # an exit reads its own table
        for part in (_reached(root, set(parts) - computing) & set(parts)) - computing:
            last_reader[part] = index
    return [
        Step(
            root,
            tables.get(root) if index < len(parts) else None,
            tuple(tables[part] for part, last in last_reader.items() if last == index),
        )
        for index, root in enumerate(roots)
    ]


def shared_parts(exits: Sequence[rel.Relation]) -> list[rel.Relation]:
    """The costly relations that two or more queries would compute, the topmost first chosen
    (a part is then a query of its own, which may share what is under it with the others);
    in an order where each comes after the parts under it."""
    chosen: list[rel.Relation] = []
    while True:
        uses: Counter = Counter()
        for root in dict.fromkeys([*exits, *chosen]):
            uses.update(_reached(root, set(chosen) - {root}) - set(chosen))
        found = [relation for relation, count in uses.items() if count > 1 and _costly(relation)]
        if not found:
            break
        under = set().union(*(_reached(relation, set()) - {relation} for relation in found))
        chosen += [relation for relation in found if relation not in under]
    below = {part: len(_reached(part, set()) & set(chosen)) for part in chosen}
    return sorted(chosen, key=below.get)


def _reached(root: rel.Relation, stops: set[rel.Relation]) -> set[rel.Relation]:
    """`root` and what it reads, not reading on from the relations in `stops`."""
    seen, pending = set(), [root]
    while pending:
        relation = pending.pop()
        if relation not in seen:
            seen.add(relation)
            if relation not in stops:
                pending.extend(relation.children())
    return seen


def _costly(relation: rel.Relation) -> bool:
    """Whether computing `relation` again costs more than storing it and reading it back."""
    return any(
        isinstance(part, rel.Join | rel.Aggregate | rel.Distinct | rel.Pivot | rel.Window)
        or (isinstance(part, rel.Scan) and part.format == "csv")
        for part in _reached(relation, set())
    )
