"""The syntax tree of an expression: small frozen dataclasses, one per construct.

Every node records `span`, the (start, end) offsets of its source text, and `depth`, the
height of the tree below it. Neither takes part in equality, so trees parsed from different
spellings of the same expression compare equal.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields


@dataclass(frozen=True)
class Node:
    """Base class of all syntax-tree nodes."""

    span: tuple[int, int] = field(default=(0, 0), compare=False, repr=False, kw_only=True)
    depth: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "depth", 1 + max((c.depth for c in children(self)), default=0))


@dataclass(frozen=True)
class Literal(Node):
    """A number, string, boolean or null (`None`) written in the expression."""

    value: int | float | str | bool | None


@dataclass(frozen=True)
class Column(Node):
    """A reference to a column by name."""

    name: str


@dataclass(frozen=True)
class Unary(Node):
    """`-operand` or `not operand`."""

    op: str
    operand: Node


@dataclass(frozen=True)
class Binary(Node):
    """Arithmetic (`+ - * / % **`) or a comparison (`= != < <= > >=`)."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Logical(Node):
    """A chain of `and`s or of `or`s, flattened to one node."""

    op: str
    operands: tuple[Node, ...]


@dataclass(frozen=True)
class IsNull(Node):
    """`operand is null` (or `is not null` when negated)."""

    operand: Node
    negated: bool = False


@dataclass(frozen=True)
class In(Node):
    """`operand in (items...)` (or `not in` when negated)."""

    operand: Node
    items: tuple[Node, ...]
    negated: bool = False


@dataclass(frozen=True)
class Between(Node):
    """`operand between low and high`, inclusive (or `not between` when negated)."""

    operand: Node
    low: Node
    high: Node
    negated: bool = False


@dataclass(frozen=True)
class Like(Node):
    """`operand like pattern [escape char]`: `%` matches any run, `_` one character;
    `insensitive` for `ilike`, `negated` for `not like`. The pattern is a constant."""

    operand: Node
    pattern: Node
    escape: Node | None = None
    negated: bool = False
    insensitive: bool = False


@dataclass(frozen=True)
class Case(Node):
    """`case [operand] when a then x ... [else y] end`. `branches` alternates conditions (or,
    with an operand, the values it is compared with) and results: (when, then, when, then...).
    """

    operand: Node | None
    branches: tuple[Node, ...]
    otherwise: Node | None = None


@dataclass(frozen=True)
class Call(Node):
    """A function call; `name` is lower-cased."""

    name: str
    args: tuple[Node, ...]


@dataclass(frozen=True)
class Interval(Node):
    """`interval '3' month`: a span of `amount` (a whole number, maybe negative) `unit`s
    (singular: day, week, month, quarter, year, hour, minute or second). Only a value beside a
    date or datetime in `+`/`-` and in date_add() (`date_syntax.check_intervals`)."""

    amount: int
    unit: str


Expression = Node
"""The public name for the root of a syntax tree, as returned by `parse()`."""


def children(node: Node) -> Iterator[Node]:
    """The direct sub-nodes of `node`, in source order."""
    for item in fields(node):
        value = getattr(node, item.name, None)
        if isinstance(value, Node):
            yield value
        elif isinstance(value, tuple):
            yield from (child for child in value if isinstance(child, Node))


def walk(node: Node) -> Iterator[Node]:
    """`node` and every node below it."""
    yield node
    for child in children(node):
        yield from walk(child)
