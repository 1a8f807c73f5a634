"""Each built-in operator that lowers gives on DuckDB what it gives on pandas (the reference):
nulls, unicode, empty inputs, duplicate keys, integers with floats, dates."""

from __future__ import annotations

import datetime

import pandas as pd
import pytest

from runtime.errors import NotLowerable
from runtime.operators.contract import Operator
from runtime.operators.registry import default_registry
from runtime.tables.schema import date_dtype, schema_of
from tests.runtime.backends.both import Step, assert_same, lower_all

D = datetime.date


def people() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "id": pd.array([1, 2, 3, 4, 5, 6], dtype="Int64"),
            "name": pd.array(["Zoë", "ann", None, "Émile", "ann", "李"], dtype="str"),
            "city": pd.array(["Paris", "Köln", "Paris", None, "Köln", "Paris"], dtype="str"),
            "age": pd.array([30, None, 41, 30, 25, None], dtype="Int64"),
            "score": [1.5, float("nan"), -2.25, 1e-3, 7.0, 3.5],
            "born": pd.array(
                [D(1990, 1, 2), None, D(1983, 5, 6), D(1990, 1, 2), D(1999, 12, 31), None],
                dtype=date_dtype(),
            ),
            "active": pd.array([True, False, None, True, True, False], dtype="boolean"),
        }
    )


def orders() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "person": pd.array([1, 1, 3, None, 7, 5, 5], dtype="Int64"),
            "amount": [10.0, 2.5, None, 4.0, 8.0, 1.25, 3.0],
            "city": pd.array(
                ["Paris", "Paris", "Köln", None, "Nice", "Köln", "Paris"], dtype="str"
            ),
        }
    )


def empty(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.iloc[0:0].reset_index(drop=True)


FRAMES = {"people": people, "empty": lambda: empty(people())}


@pytest.fixture
def root(tmp_path):
    area = tmp_path / "area"
    area.mkdir()
    return area


def one(root, operator, params, frame="people", ordered=False, **inputs):
    """One operator over a frame, both ways."""
    frames = {"p": FRAMES[frame](), "o": orders()}
    step = Step("x", operator, params, inputs or {"in": "p"})
    return assert_same([step], frames, root, ordered=["x"] if ordered else ())


@pytest.mark.parametrize("frame", ["people", "empty"])
@pytest.mark.parametrize(
    ("operator", "params"),
    [
        ("select", {"columns": ["name", "id"], "rename": {"name": "who"}}),
        ("select", {"rename": {"score": "points"}}),
        ("cast", {"types": {"age": "float", "id": "string", "active": "integer"}}),
        ("cast", {"types": {"born": "string", "active": "float", "name": "string"}}),
        ("fill_nulls", {"values": {"age": 0, "name": "?", "score": 1, "active": False}}),
        ("fill_nulls", {"values": {"born": "2000-01-01"}}),
        ("drop_nulls", {"columns": ["age"]}),
        ("drop_nulls", {}),
        ("deduplicate", {}),
        ("deduplicate", {"columns": ["city"]}),
        ("deduplicate", {"columns": ["city", "born"], "keep": "last"}),
        ("limit", {"n": 3}),
        ("limit", {"n": 0}),
    ],
)
def test_row_wise_and_row_choosing_operators_match_pandas_in_order(root, frame, operator, params):
    one(root, operator, params, frame=frame, ordered=True)


@pytest.mark.parametrize("frame", ["people", "empty"])
@pytest.mark.parametrize(
    "by",
    [
        [{"column": "city"}],
        [{"column": "age", "descending": True}, {"column": "name"}],
        [{"column": "born"}, {"column": "active", "descending": True}],
        [{"column": "score"}],
    ],
)
@pytest.mark.parametrize("nulls_last", [True, False])
def test_sort_matches_pandas_order_with_ties_kept_in_input_order(root, frame, by, nulls_last):
    one(root, "sort", {"by": by, "nulls_last": nulls_last}, frame=frame, ordered=True)


@pytest.mark.parametrize("frame", ["people", "empty"])
@pytest.mark.parametrize("group_by", [[], ["city"], ["city", "active"], ["born"], ["age"]])
def test_aggregate_matches_pandas_groups_sorted_with_null_keys_last(root, frame, group_by):
    aggregations = [
        {"function": "size"},
        {"column": "name", "function": "count"},
        {"column": "score", "function": "sum"},
        {"column": "age", "function": "sum"},
        {"column": "score", "function": "mean"},
        {"column": "age", "function": "mean"},
        {"column": "score", "function": "median"},
        {"column": "age", "function": "std"},
        {"column": "name", "function": "min"},
        {"column": "born", "function": "max"},
        {"column": "active", "function": "max"},
        {"column": "city", "function": "nunique"},
    ]
    params = {"group_by": group_by, "aggregations": aggregations}
    one(root, "aggregate", params, frame=frame, ordered=True)


@pytest.mark.parametrize("how", ["inner", "left", "right", "outer"])
@pytest.mark.parametrize(
    "keys",
    [
        {"left_on": "id", "right_on": "person"},
        {"left_on": ["city"], "right_on": ["city"]},
        {"left_on": ["id", "city"], "right_on": ["person", "city"]},
    ],
)
@pytest.mark.parametrize("frame", ["people", "empty"])
def test_join_matches_pandas_merge_with_null_keys_matching(root, how, keys, frame):
    one(root, "join", {"how": how, **keys}, frame=frame, left="p", right="o")


def test_join_keys_named_alike_int_with_float_give_float(root):
    frames = {
        "a": pd.DataFrame({"k": pd.array([1, 2, None], dtype="Int64"), "x": ["a", "b", "c"]}),
        "b": pd.DataFrame({"k": [1.0, float("nan"), 3.5], "y": pd.array([1, 2, 3], dtype="Int64")}),
    }
    for how in ("inner", "left", "right", "outer"):
        step = Step(
            "j", "join", {"how": how, "left_on": "k", "right_on": "k"}, {"left": "a", "right": "b"}
        )
        assert_same([step], frames, root)


@pytest.mark.parametrize("how", ["inner", "left", "right", "outer"])
def test_rows_after_a_join_come_in_pandas_merge_order(root, how):
    frames = {"p": people(), "o": orders()}
    steps = [
        Step(
            "j",
            "join",
            {"how": how, "left_on": "city", "right_on": "city"},
            {"left": "p", "right": "o"},
        ),
        Step("l", "limit", {"n": 5}, {"in": "j"}),
        Step("d", "deduplicate", {"columns": ["city"]}, {"in": "j"}),
    ]
    assert_same(steps, frames, root, exits=["l", "d"], ordered=["l", "d"])


def test_union_widens_integers_to_floats_and_fills_missing_columns_with_nulls(root):
    frames = {
        "p": people(),
        "o": orders(),
        "e": empty(people()),
        "f": pd.DataFrame({"age": [1.5, None], "name": pd.array(["x", None], dtype="str")}),
    }
    steps = [
        Step("u", "union", {}, {"in": ["p", "o", "e", "f"]}),
        Step("l", "limit", {"n": 9}, {"in": "u"}),
    ]
    assert_same(steps, frames, root, exits=["u", "l"], ordered=["l"])


def test_a_chain_of_operators_matches_pandas(root):
    frames = {"p": people(), "o": orders()}
    steps = [
        Step("keep", "drop_nulls", {"columns": ["city"]}, {"in": "p"}),
        Step(
            "j",
            "join",
            {"how": "left", "left_on": "id", "right_on": "person"},
            {"left": "keep", "right": "o"},
        ),
        Step(
            "s",
            "select",
            {"columns": ["city_left", "amount", "name"], "rename": {"city_left": "city"}},
            {"in": "j"},
        ),
        Step("f", "fill_nulls", {"values": {"amount": 0}}, {"in": "s"}),
        Step(
            "a",
            "aggregate",
            {
                "group_by": ["city"],
                "aggregations": [
                    {"column": "amount", "function": "sum"},
                    {"column": "name", "function": "nunique"},
                ],
            },
            {"in": "f"},
        ),
        Step("sorted", "sort", {"by": [{"column": "amount_sum", "descending": True}]}, {"in": "a"}),
        Step("top", "limit", {"n": 1}, {"in": "sorted"}),
    ]
    assert_same(steps, frames, root, exits=["top", "a", "j"], ordered=["top", "a"])


@pytest.mark.parametrize(
    ("operator", "params", "reason"),
    [
        ("sample", {"n": 2, "seed": 1}, "pandas only"),
        ("aggregate", {"aggregations": [{"column": "name", "function": "first"}]}, "row order"),
        ("cast", {"types": {"name": "integer"}}, "pandas' rules"),
        ("cast", {"types": {"score": "integer"}}, "pandas' rules"),
    ],
)
def test_operators_whose_results_would_differ_do_not_lower(operator, params, reason):
    frame = people()
    step = Step("x", operator, params, {"in": "p"})
    with pytest.raises(NotLowerable, match=reason):
        lower_all([step], {"p": frame}, {"p": schema_of(frame)})


def test_frames_passing_through_keep_the_engine_dtypes(root):
    actual = one(root, "select", {})
    assert [str(dtype) for dtype in actual["x"].dtypes] == [
        "Int64",
        "str",
        "str",
        "Int64",
        "float64",
        "date32[day][pyarrow]",
        "boolean",
    ]


def test_the_registry_operators_listed_in_the_brief_all_lower():
    names = [
        "csv_input",
        "parquet_input",
        "filter",
        "transform",
        "select",
        "aggregate",
        "join",
        "union",
        "sort",
        "deduplicate",
        "limit",
        "drop_nulls",
        "fill_nulls",
        "cast",
    ]

    for name in names:
        assert type(default_registry().get(name)).lower is not Operator.lower, name


@pytest.mark.parametrize("frame", ["people", "empty"])
@pytest.mark.parametrize(
    "condition",
    [
        "age > 28",
        "city = 'Paris' or score < 0",
        "name is null",
        "not active",
        "born >= date('1990-01-01') and len(name) > 2",
        "city in ('Köln', 'Nice') and age != 30",
    ],
)
def test_filter_keeps_the_rows_pandas_keeps_in_order_a_null_condition_drops(root, frame, condition):
    one(root, "filter", {"condition": condition}, frame=frame, ordered=True)


@pytest.mark.parametrize("frame", ["people", "empty"])
@pytest.mark.parametrize("keep", [True, False])
def test_transform_computes_in_order_replacing_in_place_and_adding_at_the_end(root, frame, keep):
    mappings = [
        {"target": "age", "expression": "age + 1"},
        {"target": "ratio", "expression": "score / age"},
        {"target": "label", "expression": "concat(city, '-', strip(name))"},
        {"target": "older", "expression": "age * 2", "type": "float"},
        {"target": "year", "expression": "year(born)"},
        {"target": "age", "expression": "coalesce(age, 0)"},
    ]
    one(
        root,
        "transform",
        {"mappings": mappings, "keep_other_columns": keep},
        frame=frame,
        ordered=True,
    )


def test_an_expression_duckdb_computes_differently_does_not_lower():
    frame = people()
    step = Step(
        "x", "transform", {"mappings": [{"target": "u", "expression": "upper(name)"}]}, {"in": "p"}
    )
    with pytest.raises(NotLowerable):
        lower_all([step], {"p": frame}, {"p": schema_of(frame)})


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_datetimes_keep_their_unit_through_sort_aggregate_union_and_join(root, unit):
    times = pd.Series(pd.to_datetime(["2024-01-02 03:04:05", None, "2023-01-01 00:00:00"]))
    frame = pd.DataFrame(
        {"t": times.astype(f"datetime64[{unit}]"), "k": pd.array([1, 2, 1], dtype="Int64")}
    )
    max_t = {"group_by": ["k"], "aggregations": [{"column": "t", "function": "max"}]}
    steps = [
        Step("s", "sort", {"by": [{"column": "t"}]}, {"in": "p"}),
        Step("a", "aggregate", max_t, {"in": "s"}),
        Step("u", "union", {}, {"in": ["p", "p"]}),
        Step(
            "j",
            "join",
            {"how": "outer", "left_on": "t", "right_on": "t"},
            {"left": "p", "right": "p"},
        ),
    ]
    assert_same(steps, {"p": frame}, root, exits=["s", "a", "u", "j"], ordered=["s", "a"])
