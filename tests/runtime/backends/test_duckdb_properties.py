"""Random frames through random chains of operators give on DuckDB what they give on pandas
(hypothesis): nulls anywhere, unicode, duplicate keys, integers next to floats, dates."""

from __future__ import annotations

import datetime
import tempfile
from pathlib import Path

import pandas as pd
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from runtime.tables.schema import date_dtype
from tests.runtime.backends.both import Step, assert_frames_match, run_duckdb, run_pandas
from tests.strategies import bounded

SETTINGS = bounded(120, tolerate=[HealthCheck.too_slow])
COLUMNS = ["k", "g", "x", "d", "b"]
WORDS = ["a", "A", "é", "Zoë", "李", "", " a"]


@st.composite
def frames(draw, max_rows: int = 12):
    rows = draw(st.integers(0, max_rows))

    def column(values):
        return draw(st.lists(st.one_of(st.none(), values), min_size=rows, max_size=rows))

    days = st.integers(0, 5).map(lambda n: datetime.date(2024, 1, 1) + datetime.timedelta(days=n))
    return pd.DataFrame(
        {
            "k": pd.array(column(st.integers(-2, 3)), dtype="Int64"),
            "g": pd.array(column(st.sampled_from(WORDS)), dtype="str"),
            "x": pd.array(column(st.sampled_from([0.5, -1.25, 3.0, 1e-3, 2.0])), dtype="float64"),
            "d": pd.array(column(days), dtype=date_dtype()),
            "b": pd.array(column(st.booleans()), dtype="boolean"),
        }
    )


def keys(draw, min_size=1):
    return draw(st.lists(st.sampled_from(COLUMNS), min_size=min_size, max_size=3, unique=True))


@st.composite
def steps(draw):
    """A chain over the frame `p` (and `q` for joins and unions), and whether pandas' row
    order is one DuckDB keeps for the exit (after a sort or an aggregate, or no reordering)."""
    chain, ordered, previous = [], True, "p"
    for index in range(draw(st.integers(1, 4))):
        kind = draw(
            st.sampled_from(["filter", "sort", "dedupe", "limit", "drop", "fill", "join", "union"])
        )
        step_id = f"s{index}"
        if kind == "filter":
            condition = draw(
                st.sampled_from(
                    ["k > 0", "g = 'a' or x < 1", "b", "d >= date('2024-01-03')", "k is null"]
                )
            )
            chain.append(Step(step_id, "filter", {"condition": condition}, {"in": previous}))
        elif kind == "sort":
            by = [{"column": c, "descending": draw(st.booleans())} for c in keys(draw)]
            chain.append(
                Step(
                    step_id, "sort", {"by": by, "nulls_last": draw(st.booleans())}, {"in": previous}
                )
            )
            ordered = True
        elif kind == "dedupe":
            columns = keys(draw, min_size=0)
            keep = draw(st.sampled_from(["first", "last"]))
            chain.append(
                Step(step_id, "deduplicate", {"columns": columns, "keep": keep}, {"in": previous})
            )
            ordered = ordered and bool(columns)
        elif kind == "limit":
            chain.append(Step(step_id, "limit", {"n": draw(st.integers(0, 8))}, {"in": previous}))
        elif kind == "drop":
            chain.append(
                Step(step_id, "drop_nulls", {"columns": keys(draw, min_size=0)}, {"in": previous})
            )
        elif kind == "fill":
            chain.append(
                Step(
                    step_id,
                    "fill_nulls",
                    {"values": {"k": 0, "g": "?", "x": 1.5}},
                    {"in": previous},
                )
            )
        elif kind == "union":
            chain.append(Step(step_id, "union", {}, {"in": [previous, "q"]}))
            ordered = False
        else:  # a join keeps the left's columns, so later steps still find them
            how = draw(st.sampled_from(["inner", "left", "right", "outer"]))
            on = keys(draw)
            right = Step(f"r{index}", "select", {"columns": on}, {"in": "q"})
            chain += [
                right,
                Step(
                    step_id,
                    "join",
                    {"how": how, "left_on": on, "right_on": on},
                    {"left": previous, "right": right.id},
                ),
            ]
            ordered = False
        previous = step_id
    if draw(st.booleans()):
        group_by = keys(draw, min_size=0)
        functions = ["count", "size", "sum", "mean", "min", "max", "nunique", "median", "std"]
        aggregations = [
            {"column": column, "function": function, "name": f"{column}_{function}_{i}"}
            for i, (column, function) in enumerate(
                draw(
                    st.lists(
                        st.tuples(st.sampled_from(["k", "x"]), st.sampled_from(functions)),
                        min_size=1,
                        max_size=4,
                    )
                )
            )
        ]
        chain.append(
            Step(
                "agg",
                "aggregate",
                {"group_by": group_by, "aggregations": aggregations},
                {"in": previous},
            )
        )
        ordered = True
    return chain, ordered


@SETTINGS
@given(frames(), frames(max_rows=6), steps())
def test_random_chains_give_the_same_rows_on_both_backends(left, right, chain):
    chain, ordered = chain
    sources = {"p": left, "q": right}
    exit = chain[-1].id
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "area"
        root.mkdir()
        expected, schemas = run_pandas(chain, sources, root)
        actual, _ = run_duckdb(chain, sources, schemas, root, [exit])
    assert_frames_match(actual[exit], expected[exit], ordered=ordered)
