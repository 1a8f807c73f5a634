"""Rows out of every member of a DuckDB segment: from DuckDB's profile where it computed the
member's relation, then by the relations' meaning; never a figure pandas would not give."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from runtime import relational as rel
from runtime.backends.duckdb.profiles import parsed, skeleton
from runtime.backends.duckdb.shapes import Shape, matched
from tests.runtime.backends.both import Step, run_duckdb, run_pandas
from tests.runtime.backends.test_duckdb_properties import frames, steps
from tests.strategies import bounded, json_scalars

ROWS = 2000


@pytest.fixture
def people():
    rng = np.random.default_rng(3)
    return pd.DataFrame(
        {
            "k": pd.array(rng.integers(0, 40, ROWS), dtype="Int64"),
            "g": pd.array(rng.choice(["a", "b", "é", None], ROWS), dtype="str"),
            "x": rng.uniform(0, 3, ROWS),
        }
    )


@pytest.fixture
def keys():
    return pd.DataFrame({"k": pd.array([1, 2, 3, 5, 8], dtype="Int64"), "name": list("abcde")})


def both(steps, frames, root, exits=None) -> tuple[dict, dict]:
    """Each step's rows on pandas, and as the DuckDB segment reports them."""
    expected, schemas = run_pandas(steps, frames, root)
    _, result = run_duckdb(steps, frames, schemas, root, exits or [steps[-1].id])
    return {step.id: len(expected[step.id]) for step in steps}, result.rows


def test_every_member_of_a_chain_of_different_operators_reports_its_rows(tmp_path, people, keys):
    steps = [
        Step("adults", "filter", {"condition": "k > 4"}, {"in": "people"}),
        Step("loud", "transform", {"mappings": [{"target": "g", "expression": "concat(g, '!')"}]},
             {"in": "adults"}),
        Step("named", "join", {"left_on": ["k"], "right_on": ["k"]},
             {"left": "loud", "right": "keys"}),
        Step("both", "union", {}, {"in": ["named", "named"]}),
        Step("once", "deduplicate", {"columns": ["k", "g"]}, {"in": "both"}),
        Step("by_k", "aggregate", {"group_by": ["k"], "aggregations": [
            {"column": "x", "function": "sum", "name": "x"}]}, {"in": "once"}),
        Step("top", "limit", {"n": 100}, {"in": "by_k"}),
    ]  # fmt: skip
    expected, reported = both(steps, {"people": people, "keys": keys}, tmp_path)
    assert reported == expected


def test_a_chain_of_filters_reports_its_last_filter_and_not_the_one_merged_into_it(
    tmp_path, people
):
    steps = [
        Step("first", "filter", {"condition": "k > 4"}, {"in": "people"}),
        Step("second", "filter", {"condition": "x < 1"}, {"in": "first"}),
        Step("total", "aggregate", {"aggregations": [
            {"column": "x", "function": "count", "name": "n"}]}, {"in": "second"}),
    ]  # fmt: skip
    expected, reported = both(steps, {"people": people}, tmp_path)
    assert reported == {**expected, "first": None}  # DuckDB tests both conditions at once


def test_a_filter_moved_past_an_aggregate_by_duckdb_leaves_the_aggregate_unknown(tmp_path, people):
    steps = [
        Step("by_k", "aggregate", {"group_by": ["k"], "aggregations": [
            {"column": "x", "function": "sum", "name": "x"}]}, {"in": "people"}),
        Step("small", "filter", {"condition": "k < 10"}, {"in": "by_k"}),
    ]  # fmt: skip
    expected, reported = both(steps, {"people": people}, tmp_path)
    assert reported == {**expected, "by_k": None}  # only the groups under 10 were made


def test_a_limit_that_got_its_rows_leaves_what_is_under_it_unknown(tmp_path, people):
    steps = [
        Step("adults", "filter", {"condition": "k > 4"}, {"in": "people"}),
        Step("few", "limit", {"n": 10}, {"in": "adults"}),
    ]
    expected, reported = both(steps, {"people": people}, tmp_path)
    assert reported == {**expected, "adults": None}  # DuckDB stopped reading after 10


def test_a_limit_short_of_its_count_gives_the_rows_under_it(tmp_path, people):
    steps = [
        Step("rare", "filter", {"condition": "k = 7"}, {"in": "people"}),
        Step("upper", "transform", {"mappings": [{"target": "g", "expression": "concat(g, '!')"}]},
             {"in": "rare"}),
        Step("few", "limit", {"n": ROWS}, {"in": "upper"}),
    ]  # fmt: skip
    expected, reported = both(steps, {"people": people}, tmp_path)
    assert reported == expected


def test_a_filter_pushed_into_a_parquet_scan_leaves_the_scan_unknown(tmp_path, people):
    people.to_parquet(tmp_path / "people.parquet")
    steps = [
        Step("read", "parquet_input", {"path": "people.parquet"}),
        Step("adults", "filter", {"condition": "k > 4"}, {"in": "read"}),
    ]
    expected, reported = both(steps, {}, tmp_path)
    assert reported == {**expected, "read": None}  # the scan counts only the rows kept


def test_a_scan_pruned_by_a_joins_dynamic_filter_is_unknown_and_the_join_known(
    tmp_path, people, keys
):
    people.to_parquet(tmp_path / "people.parquet")
    keys.to_parquet(tmp_path / "keys.parquet")
    steps = [
        Step("read", "parquet_input", {"path": "people.parquet"}),
        Step("keys", "parquet_input", {"path": "keys.parquet"}),
        Step("named", "join", {"left_on": ["k"], "right_on": ["k"]},
             {"left": "read", "right": "keys"}),
    ]  # fmt: skip
    expected, reported = both(steps, {}, tmp_path)
    assert reported == {**expected, "read": None}


def test_a_join_with_an_empty_side_gives_no_figure_for_the_side_that_may_not_have_run(
    tmp_path, people, keys
):
    steps = [
        Step("none", "filter", {"condition": "k > 100"}, {"in": "keys"}),
        Step("adults", "filter", {"condition": "k > 4"}, {"in": "people"}),
        Step("named", "join", {"left_on": ["k"], "right_on": ["k"]},
             {"left": "adults", "right": "none"}),
    ]  # fmt: skip
    expected, reported = both(steps, {"people": people, "keys": keys}, tmp_path)
    # neither key can be null, so the join is an `=` one, which DuckDB plans otherwise: its
    # profile no longer shows the empty side's own count either (no figure, never a wrong one)
    assert reported == {**expected, "adults": None, "none": None}


def test_a_profile_nested_deeper_than_json_recursion_is_read():
    scan = {"name": "READ_CSV", "type": "TABLE_SCAN", "intermediate_rows": 7,
            "extra_info": {"Function": "READ_CSV", "Filename(s)": "/data/a.csv"}}  # fmt: skip
    projection = '{"name": "PROJECTION", "type": "PROJECTION", "children": ['
    depth = 2000  # a chain of derives: projections, each nested in the next
    profile = '{"operator": [' + projection * depth + json.dumps(scan) + "]}" * depth + "]}"
    with pytest.raises(RecursionError):
        json.loads(profile)
    assert skeleton(profile) == Shape("scan", key="/data/a.csv", rows=7)


def test_a_segment_whose_profile_is_too_long_to_read_counts_by_meaning_alone(tmp_path, people):
    steps, previous = [], "people"
    for index in range(64):  # each projection lists expressions that grow with the chain
        mappings = [{"target": "x", "expression": f"x + {j}"} for j in range(3)]
        steps.append(Step(f"t{index}", "transform", {"mappings": mappings}, {"in": previous}))
        previous = f"t{index}"
    expected, reported = both(steps, {"people": people.head(50)}, tmp_path)
    assert reported == expected


def test_joined_sides_that_fit_both_ways_with_different_rows_give_nothing():
    left, right = rel.Input(("a", "out")), rel.Input(("b", "out"))
    pick_a, pick_b = rel.Filter(left, "k > 1"), rel.Filter(right, "k > 1")
    join = rel.Join(pick_a, pick_b, "inner", (("k", "k"),), ())
    ours = Shape("join", (
        Shape("filter", (Shape("frame", key=5, relation=left),), relation=pick_a),
        Shape("filter", (Shape("frame", key=5, relation=right),), relation=pick_b),
    ), "inner", join)  # fmt: skip
    theirs = Shape("join", (
        Shape("filter", (Shape("frame", rows=5),), rows=2),
        Shape("filter", (Shape("frame", rows=5),), rows=3),
    ), "INNER", rows=4)  # fmt: skip
    assert matched(ours, theirs) is None
    one_sided = Shape("join", (theirs.children[0], theirs.children[0]), "INNER", rows=4)
    assert matched(ours, one_sided) == {left: 5, right: 5, pick_a: 2, pick_b: 2, join: 4}


json_values = st.recursive(
    json_scalars | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=20,
)


@bounded(200)
@given(json_values)
def test_a_profile_is_read_as_json_reads_it(value):
    text = json.dumps(value, indent=1)
    assert parsed(text) == json.loads(text)


def test_a_profile_nested_deeper_than_python_recurses_is_read():
    text = '{"a": ' * 5000 + "1" + "}" * 5000
    value = parsed(text)
    for _ in range(5000):
        value = value["a"]
    assert value == 1


@bounded(150, tolerate=[HealthCheck.too_slow])
@given(frames(), frames(max_rows=6), steps())
def test_every_members_rows_on_duckdb_are_pandas_rows_or_unknown(left, right, chain):
    chain, _ = chain
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "area"
        root.mkdir()
        expected, reported = both(chain, {"p": left, "q": right}, root)
    assert {node: rows for node, rows in reported.items() if rows is not None}.items() <= (
        expected.items()
    )
