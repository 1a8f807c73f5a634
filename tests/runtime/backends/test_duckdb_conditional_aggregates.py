"""Aggregations of expressions over the rows where a condition holds, and broadcasts of their
results, give on DuckDB what they give on pandas (hypothesis): random frames with nulls,
groups no row of which matches, conditions matching nothing, values of no row or of several."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from runtime.backends.duckdb.segment import SegmentError
from runtime.errors import OperatorError
from tests.runtime.backends.both import Step, assert_frames_match, run_duckdb, run_pandas
from tests.runtime.backends.test_duckdb_properties import frames
from tests.strategies import bounded

SETTINGS = bounded(12, tolerate=[HealthCheck.too_slow])
WHERE = [None, "k > 0", "g = 'a' or x < 1", "b", "false", "x is null", "d >= date('2024-01-03')"]
SUMMARISED = [
    ("column", "k"),
    ("column", "x"),
    ("expression", "k * 2 + 1"),
    ("expression", "x * (1 - 0.25)"),
    ("expression", "coalesce(x, 0) + k"),
]
NUMBER_FUNCTIONS = ["count", "sum", "mean", "min", "max", "count_distinct", "median", "std"]


@st.composite
def aggregations(draw) -> list[dict]:
    drawn = draw(
        st.lists(
            st.tuples(
                st.sampled_from(SUMMARISED),
                st.sampled_from([*NUMBER_FUNCTIONS, "size"]),
                st.sampled_from(WHERE),
            ),
            min_size=1,
            max_size=4,
        )
    )
    found = []
    for index, ((kind, text), function, where) in enumerate(drawn):
        aggregation = {"function": function, "name": f"a{index}"}
        if function != "size" or kind == "column":
            aggregation[kind] = text
        if where is not None:
            aggregation["where"] = where
        found.append(aggregation)
    return found


def both(chain: list[Step], sources: dict, exit: str, ordered: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "area"
        root.mkdir()
        expected, schemas = run_pandas(chain, sources, root)
        actual, _ = run_duckdb(chain, sources, schemas, root, [exit])
    assert_frames_match(actual[exit], expected[exit], ordered=ordered)


@SETTINGS
@given(frames(), aggregations(), st.sampled_from([[], ["g"], ["k", "b"]]))
def test_conditional_aggregates_give_the_same_rows_on_both_backends(frame, calls, group_by):
    if any(call.get("column") in group_by for call in calls):
        group_by = []
    chain = [Step("agg", "aggregate", {"group_by": group_by, "aggregations": calls}, {"in": "p"})]
    both(chain, {"p": frame}, "agg", ordered=True)


@SETTINGS
@given(frames(), frames(max_rows=4), st.sampled_from([None, "total > 1", "false", "top = 'a'"]))
def test_a_broadcast_total_gives_the_same_rows_on_both_backends(left, right, keep):
    """A total over `q` (one row), a filtered copy (no row or one), beside `p`'s rows, then
    the rows above it, sorted."""
    total = {"aggregations": [{"expression": "x * 2", "function": "sum", "name": "total"},
                              {"column": "g", "function": "max", "name": "top"}]}  # fmt: skip
    chain = [Step("t", "aggregate", total, {"in": "q"})]
    value = "t"
    if keep is not None:
        chain.append(Step("f", "filter", {"condition": keep}, {"in": "t"}))
        value = "f"
    chain += [
        Step("b", "broadcast", {}, {"in": "p", "value": value}),
        Step("c", "filter", {"condition": "x <= total or top is null"}, {"in": "b"}),
        Step("s", "sort", {"by": [{"column": "k"}, {"column": "x"}, {"column": "g"}]}, {"in": "c"}),
    ]
    both(chain, {"p": left, "q": right}, "s", ordered=False)


@pytest.mark.parametrize("rows_in", [0, 3])
def test_a_value_of_several_rows_fails_the_broadcast_node_on_both_backends(rows_in):
    sources = {"p": frames_of(rows_in), "q": frames_of(2)}
    chain = [Step("b", "broadcast", {"columns": ["x"]}, {"in": "r", "value": "q"}),
             Step("r", "select", {"columns": ["k"]}, {"in": "p"})][::-1]  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        with pytest.raises(OperatorError, match="value gives 2 rows; broadcast needs at most one"):
            run_pandas(chain, sources, root)
        schemas = run_pandas(chain[:1], sources, root)[1]
        schemas["b"] = None
        with pytest.raises(SegmentError, match="value gives 2 rows; broadcast needs") as raised:
            run_duckdb(chain, sources, schemas, root, ["b"])
    assert raised.value.node == "b"


def frames_of(rows: int):
    import pandas as pd

    return pd.DataFrame(
        {"k": pd.array(range(rows), dtype="Int64"), "x": [float(n) for n in range(rows)]}
    )
