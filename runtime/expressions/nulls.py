"""Which columns a condition needs to be non-null to hold: a row a filter keeps has none of
them null, so a join on one of them after the filter need not match nulls (`x = y` instead
of `x IS NOT DISTINCT FROM y`, which DuckDB joins less well).

Read off the syntax alone, and on the safe side: a comparison (`=`, `!=`, `<`, ... all give
null where a side is null), `in`, `between`, `like` (negated too) and `is not null` reject a
null column they test directly; `and` rejects what any of its parts rejects, `or` what all of
them do; anything else (a function, `not`, arithmetic) rejects nothing.
"""

from __future__ import annotations

import functools

from .nodes import Between, Binary, Column, In, IsNull, Like, Logical, Node
from .parser import parse

_COMPARISONS = {"=", "!=", "<", "<=", ">", ">="}


@functools.lru_cache(maxsize=1024)
def null_rejected_columns(condition: str) -> frozenset[str]:
    """The columns that are never null in a row where `condition` is true."""
    return _rejected(parse(condition))


def _rejected(node: Node) -> frozenset[str]:
    if isinstance(node, Logical):
        parts = [_rejected(operand) for operand in node.operands]
        if node.op == "and":
            return frozenset().union(*parts)
        return frozenset.intersection(*parts)
    if isinstance(node, Binary) and node.op in _COMPARISONS:
        return _columns(node.left, node.right)
    if isinstance(node, In | Between) and not node.negated:
        return _columns(node.operand)
    if isinstance(node, Like):
        return _columns(node.operand)
    if isinstance(node, IsNull) and node.negated:
        return _columns(node.operand)
    return frozenset()


def _columns(*nodes: Node) -> frozenset[str]:
    return frozenset(node.name for node in nodes if isinstance(node, Column))
