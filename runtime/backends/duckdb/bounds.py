"""The text-size bounds of a segment's expressions, checked before its queries build the text.

Each call that builds text carries SQL for the size of its result on each row
(runtime/expressions/sql_bounds.py). Before the segment's first query, one query per stage
and input sums those sizes over the rows the expression sees — what pandas checks on the
node's whole input frame — and the first call in pandas' order that is too large fails its
node with pandas' message, its params field first. A stage only builds the text of calls
that earlier stages let through, so a check never does the work it guards against.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from runtime import relational as rel
from runtime.expressions.errors import ExpressionError
from runtime.expressions.sql_bounds import Bound
from runtime.expressions.sql_parts import identifier as quoted


@dataclass(frozen=True)
class Check:
    """A bound of an expression of `relation`, held in params `field` (None: not known),
    over the rows of the CTE `source`."""

    relation: rel.Relation
    field: str | None
    source: str
    bound: Bound

    @property
    def key(self) -> tuple:
        """What makes two checks the same work (route's ports share their conditions)."""
        return self.source, self.bound.text, self.bound.node.span

    def message(self, error: ExpressionError) -> str:
        """As the node's operator words it on pandas (`ParamsError`)."""
        return f"{self.field}: {error}" if self.field else str(error)


def refused(
    checks: list[Check], run: Callable[[str, str, list], tuple]
) -> tuple[Check, ExpressionError] | None:
    """The first check, in pandas' order, whose text is too large, with pandas' error; `run`
    executes `SELECT <selected> FROM <source>` with its parameters and returns its one row."""
    first: tuple[int, Check, ExpressionError] | None = None
    for stage in sorted({check.bound.stage for check in checks}):
        due = [
            (index, check)
            for index, check in enumerate(checks)
            if check.bound.stage == stage and (first is None or index < first[0])
        ]
        for source in dict.fromkeys(check.source for _, check in due):
            group = [(index, check) for index, check in due if check.source == source]
            for (index, check), (total, largest) in zip(
                group, _sizes(group, source, run), strict=True
            ):
                error = check.bound.refusal(total, largest)
                if error is not None and (first is None or index < first[0]):
                    first = (index, check, error)
    return None if first is None else first[1:]


def _sizes(group, source: str, run) -> list[tuple[int, int]]:
    """Each check's total and largest size over the rows of `source`, in one query."""
    selected, params = [], []
    for _, check in group:
        size = check.bound.size
        selected += [f"COALESCE(SUM({size.text}), 0)", f"COALESCE(MAX({size.text}), 0)"]
        params += [*size.params, *size.params]
    row = run(", ".join(selected), quoted(source), params)
    return [(int(row[i]), int(row[i + 1])) for i in range(0, len(row), 2)]
