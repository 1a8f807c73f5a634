"""Rows out of every relation of a segment: DuckDB's profile where it is provably exact, and
what follows from the relations' meaning.

DuckDB runs a segment's query after optimizing it: it merges adjacent filters and pushes them
into scans and past aggregates, swaps join sides, materializes shared parts, prunes a join's
probe side with the keys of its build side, and stops reading once a limit has its rows. An
operator's row count in the profile (`intermediate_rows`) is therefore a relation's count only
where the profile shows DuckDB computed that relation. Both sides are reduced to a skeleton of
the operators that change the number of rows (runtime/backends/duckdb/shapes.py, profiles.py);
where the two skeletons are the same tree, each operator's rows are its relation's, except
where the profile cannot be trusted (profiles.py says when). Anything else is None, never a
guess.

Counts then spread by meaning (`spread`): row-wise relations (derive, project, cast,
fill_nulls, sort) and a broadcast (of its `input`) keep their input's count both ways, a union
is the sum of its inputs, a limit is min(n, input) and, below n, its input's count; an empty
input gives an empty filter, join, distinct or grouped aggregate.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from runtime import relational as rel
from runtime.backends.duckdb.profiles import skeleton
from runtime.backends.duckdb.shapes import is_row_wise, matched, planned
from runtime.document.spec import Source


class Tally:
    """The counts a segment's queries give, gathered query by query."""

    def __init__(self, paths: Mapping[str, str], frame_rows: Mapping[Source, int]):
        self.paths = paths
        """A scan's path as the document names it → the file as DuckDB names it."""
        self.frame_rows = frame_rows
        self.exact: dict[rel.Relation, int] = {
            rel.Input(source): rows for source, rows in frame_rows.items()
        }
        self.profiled: dict[rel.Relation, int] = {}
        self.doubtful: set[rel.Relation] = set()
        """Relations two profiles disagree on (which never happens when both are exact)."""

    def counted(self, relation: rel.Relation, rows: int) -> None:
        """`relation` has `rows` rows for certain (a frame DuckDB returned)."""
        self.exact[relation] = rows

    def query_ran(self, relation: rel.Relation, profile: str, tables=None) -> None:
        """Take what the JSON `profile` of the query computing `relation` gives exactly."""
        theirs = skeleton(profile)
        if theirs is None:
            return
        ours = planned(relation, self.paths, self.frame_rows, tables)
        for found, rows in (matched(ours, theirs) or {}).items():
            if self.profiled.setdefault(found, rows) != rows:
                self.doubtful.add(found)

    def rows(self, members: Mapping[str, Mapping[str, rel.Relation]]) -> dict[str, int | None]:
        """Rows out per member node (the sum over its ports), None where not known."""
        known = {r: n for r, n in self.profiled.items() if r not in self.doubtful}
        roots = [relation for ports in members.values() for relation in ports.values()]
        counts = spread({**known, **self.exact}, roots)
        found = {}
        for node, ports in members.items():
            values = [counts.get(relation) for relation in ports.values()]
            found[node] = None if None in values else sum(values)
        return found


def spread(known: dict[rel.Relation, int], roots: Iterable[rel.Relation]) -> dict:
    """`known` with every count that follows from it by the relations' meaning."""
    relations = _below(roots)
    counts = dict(known)
    changed = True
    while changed:
        changed = False
        for relation in relations:
            for target, value in _implied(relation, counts):
                if target not in counts:
                    counts[target] = value
                    changed = True
    return counts


def _below(roots: Iterable[rel.Relation]) -> list[rel.Relation]:
    """Every relation under `roots` (themselves included), once."""
    seen: dict[rel.Relation, None] = {}
    pending = list(roots)
    while pending:
        relation = pending.pop()
        if relation not in seen:
            seen[relation] = None
            pending.extend(relation.children())
    return list(seen)


def _implied(relation: rel.Relation, counts: dict) -> Iterable[tuple[rel.Relation, int]]:
    """The counts that `relation`'s meaning gives from those already known."""
    own = counts.get(relation)
    children = list(relation.children())
    found = [counts.get(child) for child in children]
    if is_row_wise(relation):
        (child,), (below,) = children, found
        if own is not None:
            yield child, own
        if below is not None:
            yield relation, below
    elif isinstance(relation, rel.Union):
        missing = [child for child, value in zip(children, found, strict=True) if value is None]
        if not missing:
            yield relation, sum(found)
        elif own is not None and len(missing) == 1:
            yield missing[0], own - sum(value for value in found if value is not None)
    elif isinstance(relation, rel.Broadcast):  # each row of its input, once
        below = counts.get(relation.input)
        if below is not None:
            yield relation, below
        if own is not None:
            yield relation.input, own
    elif isinstance(relation, rel.Limit):
        (child,), (below,) = children, found
        if below is not None:
            yield relation, min(relation.n, below)
        if own is not None and own < relation.n:
            yield child, own
    elif 0 in found:
        yield from _empty(relation, found)


def _empty(relation: rel.Relation, found: list) -> Iterable[tuple]:
    """What an empty input gives."""
    if isinstance(relation, rel.Filter | rel.DropNulls | rel.Distinct | rel.Unpivot):
        yield relation, 0
    elif isinstance(relation, rel.Pivot):
        yield relation, 0 if relation.index else 1
    elif isinstance(relation, rel.Aggregate):
        yield relation, 0 if relation.group_by else 1
    elif isinstance(relation, rel.Join):
        left, right = found
        how = relation.how
        if (how in ("inner", "left", "semi", "anti") and left == 0) or (
            how in ("inner", "right", "semi") and right == 0
        ):
            yield relation, 0
        elif how in ("left", "outer", "anti") and right == 0 and left is not None:
            yield relation, left  # every row of the other side, once
        elif how in ("right", "outer") and left == 0 and right is not None:
            yield relation, right
