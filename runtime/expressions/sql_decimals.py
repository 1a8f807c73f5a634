"""Decimals in DuckDB SQL: the operands `decimals.py` gives a decimal meeting, lowered alike.

DuckDB computes DECIMAL arithmetic natively, with the precision and scale rules that
`decimals.py` copies for pandas, so a decimal expression lowers as it is written. What must be
decided here is only what each operand is where it meets a decimal, as the pandas compiler
decides it: a number written with a point (and literal-only arithmetic of them) becomes a
bound DECIMAL of the precision and scale `decimals.exact_value` gives, not a DOUBLE; an integer
literal DECIMAL(10,0) when it fits 32 bits (DuckDB's INTEGER), any other integer stays a
BIGINT (DECIMAL(19,0) to DuckDB); a float among them makes every decimal a DOUBLE. `/`, `%`
and `**` read decimals as DOUBLE.
"""

from __future__ import annotations

from .decimals import DECIMAL, exact_value, integer_decimal
from .exact_decimals import ExactDecimal
from .nodes import Binary, Literal, Node
from .sql_parts import NULL_SQL, Sql, cast, sql
from .values import NULL

_IN_FLOATS = ("/", "%", "**")


def decimal_param(constant: ExactDecimal) -> Sql:
    """A decimal constant bound exactly, in its own type."""
    text = None if constant.value is None else str(constant.value)
    return Sql(f"CAST(? AS DECIMAL({constant.precision},{constant.scale}))", (text,), DECIMAL)


def promoted(nodes: list[Node], items: list[Sql], text: str) -> list[Sql]:
    """`items` (lowered `nodes`) as `decimals.promoted` types them where one is a decimal."""
    if not any(item.type == DECIMAL for item in items):
        return items
    if any(item.type not in ("integer", "float", DECIMAL, NULL) for item in items):
        return items  # cannot happen: the checker refused it
    found = [_as_decimal(node, item, text) for node, item in zip(nodes, items, strict=True)]
    if all(item is not None for item in found):
        return found
    return [as_float(item) for item in items]


def _as_decimal(node: Node, item: Sql, text: str) -> Sql | None:
    if item.type in (DECIMAL, NULL):
        return item
    if item.type == "integer":
        is_literal = isinstance(node, Literal)
        return decimal_param(integer_decimal(node, node.value)) if is_literal else item
    if item.type == "float":
        exact = exact_value(node, text)
        return None if exact is None else decimal_param(exact)
    return None


def as_float(item: Sql) -> Sql:
    """A decimal as DOUBLE (the nearest float, as pandas reads it), others unchanged."""
    return cast(item, "float") if item.type == DECIMAL else item


def operands(node: Binary, left: Sql, right: Sql, text: str) -> tuple[Sql, Sql]:
    """The two sides of `node` as the pandas compiler types them where one is a decimal."""
    if DECIMAL not in (left.type, right.type):
        return left, right
    if node.op in _IN_FLOATS:
        return as_float(left), as_float(right)
    return tuple(promoted([node.left, node.right], [left, right], text))


def binary(node: Binary, left: Sql, right: Sql, operator: str) -> Sql:
    """Decimals compared (`operator` in SQL) or added, subtracted or multiplied, natively."""
    boolean = operator.strip() not in ("+", "-", "*")
    if not boolean and NULL in (left.type, right.type):
        return NULL_SQL
    left, right = cast(left, DECIMAL), cast(right, DECIMAL)
    return sql("(", left, operator, right, ")", type="boolean" if boolean else DECIMAL)
