"""Relational algebra: what operators lower to, so a columnar backend can run them.

Operators that can lower (`Operator.lower`) describe their work as a tree of these nodes over
their inputs' relations; a backend renders a segment's tree into one query. The nodes are plain
frozen data (no backend is imported here), so plans can be compared, hashed and explained.
Expressions stay as their source text: a backend compiles them against the input's columns.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields

from runtime.graph import Source


@dataclass(frozen=True)
class Relation:
    """Base class of all relational nodes."""

    def children(self) -> Iterator[Relation]:
        """The relations this one reads, in order."""
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, Relation):
                yield value
            elif isinstance(value, tuple):
                yield from (child for child in value if isinstance(child, Relation))


@dataclass(frozen=True)
class Input(Relation):
    """Rows that enter the segment from outside it: another node's output, as a frame."""

    source: Source
