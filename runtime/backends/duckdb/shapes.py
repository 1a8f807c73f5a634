"""Skeletons of a query: the operators that change the number of rows, ours and DuckDB's.

`planned` reduces one of our relation trees, runtime/backends/duckdb/profiles.py the physical
plan in DuckDB's profile, to the same vocabulary: scans, frames and tables (the leaves),
filters, distincts, aggregates, joins, unions and limits; row-wise operators (derive, project,
cast, fill_nulls, sort, window; DuckDB's projections, orderings and windows) are left out, since
they keep every row. A chain of filters is one node on both sides, since DuckDB may merge them
into one and push them into the scan below: only the top of a chain has a count. `matched` pairs
the two trees and gives each of our relations its operator's rows where the trees are the same.

Why the same tree means the same rows: each of DuckDB's rewrites that changes what an operator
sees changes the skeleton too (a filter pushed past an aggregate, a join or a union, or merged
into one further down; a join removed; a subtree found empty; a part computed once for several
readers is read back as the same node); leaves are matched by their file, their table or their
rows, joins by their type with the sides either way (when both ways fit with different counts,
nothing is taken), limits by their count. The rows an operator shows that are not its
relation's even so (DuckDB stopped reading, or pruned a scan at run time) are dropped before
matching (profiles.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from runtime import relational as rel

JOIN_TYPES = {
    "inner": {"INNER"},
    "left": {"LEFT"},
    "right": {"RIGHT"},
    "outer": {"OUTER", "FULL"},
    "semi": {"SEMI"},
    "anti": {"ANTI"},
}
SWAPPED = {
    "inner": {"INNER"},
    "left": {"RIGHT"},
    "right": {"LEFT"},
    "outer": {"OUTER", "FULL"},
    "semi": {"RIGHT_SEMI"},
    "anti": {"RIGHT_ANTI"},
}
"""The join types DuckDB shows for ours, with the sides as we give them or swapped."""
ROW_WISE = (rel.Derive, rel.Project, rel.Cast, rel.FillNulls, rel.Sort, rel.Window)


@dataclass(frozen=True)
class Shape:
    """A node of a skeleton: ours carry the relation, DuckDB's the rows it counted."""

    kind: str
    children: tuple[Shape, ...] = ()
    key: object = None
    """What must be equal on both sides: a scan's file, a table's name, a frame's rows, a
    join's type, a limit's count."""
    relation: rel.Relation | None = None
    rows: int | None = None
    dynamic: bool = False
    """A scan that a dynamic filter (of a join or top-n above) may have pruned."""
    stops: bool = False
    """A limit that stops reading once it has its rows."""


def is_row_wise(relation: rel.Relation) -> bool:
    """Whether every input row gives exactly one output row."""
    return isinstance(relation, ROW_WISE) or (
        isinstance(relation, rel.DropNulls) and not relation.columns
    )


def planned(
    relation: rel.Relation,
    paths: Mapping[str, str],
    frame_rows: Mapping,
    tables: Mapping[rel.Relation, str] | None = None,
) -> Shape:
    """The skeleton of `relation`: `paths` gives a scan's file as DuckDB names it, `frame_rows`
    the rows of each frame entering the segment, `tables` the relations read from a table."""
    tables = tables or {}

    def shape(relation: rel.Relation) -> Shape:
        if relation in tables:
            return Shape("table", key=tables[relation], relation=relation)
        if isinstance(relation, rel.Scan):
            return Shape("scan", key=paths[relation.path], relation=relation)
        if isinstance(relation, rel.Input):
            return Shape("frame", key=frame_rows[relation.source], relation=relation)
        children = tuple(shape(child) for child in relation.children())
        if is_row_wise(relation):
            return children[0]
        if isinstance(relation, rel.Filter | rel.DropNulls):
            return filtered(children[0], relation=relation)
        if isinstance(relation, rel.Union):
            parts = flat(children)
            return parts[0] if len(parts) == 1 else Shape("union", parts, relation=relation)
        if isinstance(relation, rel.Pivot):  # the declared values' rows, then a GROUP BY
            return Shape("aggregate", (filtered(children[0]),), relation=relation)
        if isinstance(relation, rel.Unpivot):  # a cross product: no kind DuckDB's matches
            return Shape("unpivot", children, relation=relation)
        for kind, cls in (("aggregate", rel.Aggregate), ("distinct", rel.Distinct)):
            if isinstance(relation, cls):
                return Shape(kind, children, relation=relation)
        if isinstance(relation, rel.Join):
            return Shape("join", children, relation.how, relation)
        if isinstance(relation, rel.Broadcast):  # a cross product no profile is matched with
            return Shape("broadcast", children, relation=relation)
        assert isinstance(relation, rel.Limit), f"no skeleton for {type(relation).__name__}"
        return Shape("limit", children, relation.n, relation)

    return shape(relation)


def filtered(below: Shape, **fields) -> Shape:
    """A filter over `below`: one chain with the filters of `below`, if it is a chain."""
    return Shape("filter", below.children if below.kind == "filter" else (below,), **fields)


def flat(children: tuple[Shape, ...]) -> tuple[Shape, ...]:
    """A union's inputs, with those of the unions among them in their place."""
    return tuple(
        part
        for child in children
        for part in (child.children if child.kind == "union" else (child,))
    )


def matched(ours: Shape, theirs: Shape) -> dict[rel.Relation, int] | None:
    """Our relations' rows when the two skeletons are the same tree, else None."""
    if not _alike(ours, theirs):
        return None
    pairings = [tuple(theirs.children)]
    if ours.kind == "join":
        pairings = []
        if theirs.key in JOIN_TYPES[ours.key]:
            pairings.append(theirs.children)
        if theirs.key in SWAPPED[ours.key]:
            pairings.append(theirs.children[::-1])
    found = None
    for others in pairings:
        counts: dict | None = {}
        for mine, other in zip(ours.children, others, strict=True):
            counts = _joined(counts, matched(mine, other))
            if counts is None:
                break
        if counts is not None and found is not None and counts != found:
            return None  # both ways fit and disagree: which side is which is not known
        found = counts if counts is not None else found
    if found is not None and theirs.rows is not None and ours.relation is not None:
        found = _joined(found, {ours.relation: theirs.rows})
    return found


def _alike(ours: Shape, theirs: Shape) -> bool:
    if len(ours.children) != len(theirs.children):
        return False
    if ours.kind == "distinct":  # DuckDB keeps a group's first row by a window or arg_min
        return theirs.kind in ("qualify", "aggregate")
    if ours.kind != theirs.kind:
        return False
    if ours.kind == "frame":
        return theirs.rows is None or theirs.rows == ours.key
    return ours.kind == "join" or ours.key == theirs.key


def _joined(counts: dict | None, more: dict | None) -> dict | None:
    """Both sets of counts, or None when one is missing or they disagree."""
    if counts is None or more is None:
        return None
    if any(counts.get(relation, rows) != rows for relation, rows in more.items()):
        return None
    return {**counts, **more}
