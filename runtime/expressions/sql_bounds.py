"""The text-size bounds of `sizes.py` for an expression lowered to SQL.

On pandas, each function that builds text (`replace`, `concat`, `+` on strings) works out the
size of its result before building it, and refuses a column past `MAX_COLUMN_BYTES` or a value
past `MAX_VALUE_BYTES`. DuckDB builds a few thousand rows at a time and would build the same
text without a bound (a filter of three nested replaces refused at once on pandas took 29 s of
CPU on DuckDB). So lowering records a `Bound` for each such call: SQL for the size of its
result on each row, from the sizes of its arguments. The backend sums it over the rows the
expression sees, before the query that builds the text, and refuses with pandas' message.

The size of `replace(text, ...)` needs `text` itself (to count what it replaces), which may be
text another bound guards: `stage` is how deeply such texts nest in a size, so that checks
run stage by stage and none builds the text of a call a check before it refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import ExpressionError
from .nodes import Node
from .sizes import oversize
from .sql_parts import Sql, cast, sql
from .type_checks import Checker
from .values import NULL

ZERO = Sql("0", (), "integer")


@dataclass(frozen=True)
class Bound:
    """One call of an expression (`text`) that builds text: named `what` in messages, the
    SQL of its result's UTF-8 size on each row, and the stage its check runs in."""

    text: str
    node: Node
    what: str
    size: Sql
    stage: int

    def refusal(self, total: int, largest: int) -> ExpressionError | None:
        """pandas' error for a result of `total` bytes, `largest` in one row, if too large."""
        problem = oversize(total, largest)
        if problem is None:
            return None
        return Checker(self.text).error(self.node, f"{self.what}: {problem}")


def text_size(item: Sql) -> Sql:
    """The UTF-8 size of a text on each row, a null counting 0 (as `sizes.text_sizes`)."""
    if item.type == NULL:
        return ZERO
    return sql("COALESCE(strlen(", cast(item, "string"), "), 0)", type="integer")


def joined_size(sizes: list[Sql]) -> Sql:
    """The size of texts put end to end, from theirs (as `sizes.joined_sizes`)."""
    parts: list[str | Sql] = ["("]
    for index, size in enumerate(sizes):
        parts += [" + ", size] if index else [size]
    return sql(*parts, ")", type="integer")


def replaced_size(text: Sql, old: Sql, new: Sql) -> Sql:
    """The size of `text` once every `old` in it is `new` (as `sizes.replaced_sizes`): the
    non-overlapping matches are counted by what removing them takes away."""
    text = cast(text, "string")
    growth = sql("(strlen(", new, ") - strlen(", old, "))")
    removed = sql("strlen(", text, ") - strlen(replace(", text, ", ", old, ", ''))")
    count = sql("((", removed, ") // strlen(", old, "))")
    return sql(
        "(", text_size(text), " + CASE WHEN ", growth, " > 0 THEN COALESCE(", count, " * ",
        growth, ", 0) ELSE 0 END)",
        type="integer",
    )  # fmt: skip
