"""An aggregate split in two: a partial aggregate per partition, and one that combines them.

`count`, `size` and `sum` are sums of partial counts and sums; `min` and `max` the min and max
of the partial ones; `mean` the sum of partial sums over the sum of partial counts. Both steps
are the `aggregate` operator itself (the same grouping, null keys, sorting and dtypes as a
run on one machine), so only a mean can differ from the local result, by float rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

from runtime.lazy import pd
from runtime.operators.aggregate import AggregateParams, Aggregation

DECOMPOSABLE = ("count", "size", "sum", "min", "max", "mean")
_COMBINED_BY = {"count": "sum", "size": "sum", "sum": "sum", "min": "min", "max": "max"}


def undecomposable(params: AggregateParams) -> str | None:
    """Why `params` cannot be split in two (a function needs all of a group at once), or None."""
    for aggregation in params.aggregations:
        if aggregation.function not in DECOMPOSABLE:
            return f"{aggregation.function} needs all of a group's values at once"
    return None


@dataclass(frozen=True)
class SplitAggregate:
    """One aggregate's two steps; partial columns are named after `prefix`, which no group
    column starts with."""

    params: AggregateParams

    @property
    def prefix(self) -> str:
        prefix = "__part"
        while any(key.startswith(prefix) for key in self.params.group_by):
            prefix = "_" + prefix
        return prefix

    def partial(self) -> AggregateParams:
        """The aggregate each partition computes."""
        return self.params.model_copy(update={"aggregations": list(self._pieces())})

    def combining(self) -> AggregateParams:
        """The aggregate over the partitions' partial results, concatenated."""
        calls = [
            Aggregation(column=piece.name, function=_COMBINED_BY[piece.function], name=piece.name)
            for piece in self._pieces()
        ]
        return self.params.model_copy(update={"aggregations": calls})

    def finished(self, combined: pd.DataFrame) -> pd.DataFrame:
        """The combined partials as the aggregate's own result: its columns, names, types."""
        columns = {key: combined[key] for key in self.params.group_by}
        for index, aggregation in enumerate(self.params.aggregations):
            if aggregation.function == "mean":
                total = combined[self._name(index, "sum")].astype("float64")
                count = combined[self._name(index, "count")].astype("float64")
                columns[aggregation.output_name] = total / count
            else:
                columns[aggregation.output_name] = combined[self._name(index, aggregation.function)]
        return pd.DataFrame(columns)

    def _pieces(self):
        for index, aggregation in enumerate(self.params.aggregations):
            mean = aggregation.function == "mean"
            for function in ("sum", "count") if mean else (aggregation.function,):
                # the same column or expression, over the same rows (`where`)
                yield aggregation.model_copy(
                    update={"function": function, "name": self._name(index, function)}
                )

    def _name(self, index: int, piece: str) -> str:
        return f"{self.prefix}{index}_{piece}"
