"""`like`, `case` and `nullif()` lowered to DuckDB SQL, giving `patterns.py`'s and
`conditionals.py`'s results.

* `like`: DuckDB's `LIKE` has no escape character unless `ESCAPE` names one, as ours; `_`
  is one code point in both, a newline included. So `LIKE` (with the user's `ESCAPE`, if any)
  as it is, the pattern a bound parameter. `ilike`: DuckDB lower-cases text and pattern, as
  pandas does with pyarrow's `utf8_lower`, but from another Unicode version; the letters whose
  case differs between them are none of them ASCII and none lowers to ASCII, so an `ilike`
  with an ASCII pattern gives the same answer on both, and any other stays on pandas.
* `case`: DuckDB's `CASE`, every condition and result cast as `if()` casts them; a simple
  `case x when a` keeps `x` once, cast to the type `=` would compare it in.
* `nullif(a, b)`: not DuckDB's `NULLIF`, whose result takes the type both share (an integer
  compared with a float would come back a float), but a `CASE` that keeps `a`'s type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from runtime.errors import NotLowerable

from . import sql_decimals
from .nodes import Call, Case, Like, Literal
from .sql_parts import NULL_SQL, Sql, cast, common_type, sql
from .values import NULL

if TYPE_CHECKING:
    from .to_sql import _Lowering


def lower_like(lowering: _Lowering, node: Like) -> Sql:
    """`x [NOT] LIKE|ILIKE pattern [ESCAPE char]`."""
    operand = cast(lowering.value(node.operand), "string")
    pattern = lowering.value(node.pattern)
    escape = None if node.escape is None else lowering.value(node.escape)
    if pattern.type == NULL or (escape is not None and escape.type == NULL):
        return cast(NULL_SQL, "boolean")
    if node.insensitive:
        _check_ascii(node)
    keyword = " ILIKE " if node.insensitive else " LIKE "
    parts: list[str | Sql] = ["(", operand, " NOT" if node.negated else "", keyword, pattern]
    if escape is not None:
        parts += [" ESCAPE ", escape]
    return sql(*parts, ")", type="boolean")


def _check_ascii(node: Like) -> None:
    texts = [node.pattern] if node.escape is None else [node.pattern, node.escape]
    if not all(isinstance(text, Literal) for text in texts):
        raise NotLowerable("ilike runs on DuckDB only with its pattern written as a plain value")
    if not all(text.value.isascii() for text in texts):
        raise NotLowerable(
            "ilike with letters beyond ASCII stays on pandas: pyarrow and DuckDB lower-case "
            "from different Unicode versions, so some letters would match differently"
        )


def lower_case(lowering: _Lowering, node: Case) -> Sql:
    """`CASE [x] WHEN ... THEN ... [ELSE ...] END`."""
    operand = None if node.operand is None else lowering.value(node.operand)
    branches = [lowering.value(branch) for branch in node.branches]
    otherwise = None if node.otherwise is None else lowering.value(node.otherwise)
    whens, thens = branches[0::2], branches[1::2]
    nodes = node.branches[1::2] + ((node.otherwise,) if node.otherwise is not None else ())
    results = [*thens, *([otherwise] if otherwise is not None else [])]
    results = sql_decimals.promoted(list(nodes), results, lowering.text)
    thens, otherwise = results[: len(thens)], (results[-1] if otherwise is not None else None)
    type = common_type(*results)
    if type == NULL:
        return NULL_SQL
    parts: list[str | Sql] = ["CASE"]
    if operand is not None:
        compared = [node.operand, *node.branches[0::2]]
        operand, *whens = sql_decimals.promoted(compared, [operand, *whens], lowering.text)
        shared = common_type(operand, *whens, default="string")
        parts += [" ", cast(operand, shared)]
        whens = [cast(when, shared) for when in whens]
    else:
        whens = [cast(when, "boolean") for when in whens]
    for when, then in zip(whens, thens, strict=True):
        parts += [" WHEN ", when, " THEN ", cast(then, type)]
    if otherwise is not None:
        parts += [" ELSE ", cast(otherwise, type)]
    return sql(*parts, " END", type=type)


def lower_nullif(node: Call, value: Sql, other: Sql) -> Sql:
    """`CASE WHEN a = b THEN NULL ELSE a END`, in `a`'s type."""
    if value.type == NULL:
        return NULL_SQL
    if other.type == NULL:
        return value
    shared = common_type(value, other)
    test = sql("(", cast(value, shared), " = ", cast(other, shared), ")")
    return sql("CASE WHEN ", test, " THEN NULL ELSE ", value, " END", type=value.type)
