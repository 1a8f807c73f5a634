"""Semi and anti joins, and joins with a condition, give pandas' answer on DuckDB: on random
small frames (null and repeated keys on both sides, empty sides), in the left rows' order,
and on TPC-H-shaped queries (Q4, Q21, Q13) where DuckDB's own SQL gives the answer too."""

from __future__ import annotations

from random import Random

import duckdb
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.runtime.backends.both import Step, assert_frames_match, assert_same, run_pandas
from tests.strategies import bounded

CONDITIONS = [
    None,
    "v_right > v_left",
    "v_right is null or s_left = 'a'",
    "s_right <> s_left",
    "k is not null and v_left + v_right >= 2",
]


def frame(rng: Random, rows: int, names: tuple[str, ...]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "k": pd.array([rng.choice([None, 1, 2, 3]) for _ in range(rows)], dtype="Int64"),
            "v": pd.array([rng.choice([None, 0, 1, 2]) for _ in range(rows)], dtype="Int64"),
            "s": pd.array([rng.choice([None, "a", "b"]) for _ in range(rows)], dtype="str"),
        }
    )[list(names)]


@bounded(25)
@given(
    seed=st.integers(0, 2**32),
    how=st.sampled_from(["semi", "anti", "inner", "left"]),
    condition=st.sampled_from(CONDITIONS),
)
def test_a_join_with_random_keys_and_conditions_gives_pandas_answer_in_its_order(
    seed, how, condition, tmp_path_factory
):
    rng = Random(seed)
    left = frame(rng, rng.choice([0, 1, 4, 9]), ("k", "v", "s"))
    right = frame(rng, rng.choice([0, 1, 3, 7]), ("k", "v", "s"))
    params = {"how": how, "left_on": ["k"], "right_on": ["k"]}
    if condition is not None:
        params["condition"] = condition
    steps = [
        Step("j", "join", params, {"left": "l", "right": "r"}),
        Step("first", "limit", {"n": 5}, {"in": "j"}),  # DuckDB keeps pandas' order for it
    ]
    root = tmp_path_factory.mktemp("join")
    assert_same(steps, {"l": left, "r": right}, root, exits=["j", "first"], ordered=("first",))


def joined(params: dict, left: pd.DataFrame, right: pd.DataFrame, root) -> pd.DataFrame:
    """The join on pandas, after checking DuckDB gives the same rows in the same order."""
    steps = [Step("j", "join", params, {"left": "l", "right": "r"}), in_order("j")]
    assert_same(steps, {"l": left, "r": right}, root, ordered=("ordered",))
    return run_pandas(steps, {"l": left, "r": right}, root)[0]["j"]


def in_order(step: str) -> Step:
    """A limit that takes every row: DuckDB then gives them in pandas' order (a segment's
    exit may come in any order, as the rule for equal outputs allows)."""
    return Step("ordered", "limit", {"n": 1000}, {"in": step})


def test_semi_keeps_each_matched_left_row_once_and_anti_the_others_null_keys_matching(tmp_path):
    left = pd.DataFrame(
        {
            "k": pd.array([1, None, 2, 1, 5], dtype="Int64"),
            "a": pd.array(list("pqrst"), dtype="str"),
        }
    )
    right = pd.DataFrame(
        {"k": pd.array([1, 1, None, 9], dtype="Int64"), "b": pd.array([1, 2, 3, 4], dtype="Int64")}
    )
    semi = joined({"how": "semi", "left_on": "k", "right_on": "k"}, left, right, tmp_path)
    anti = joined({"how": "anti", "left_on": "k", "right_on": "k"}, left, right, tmp_path)
    assert list(semi.columns) == ["k", "a"] and list(semi["a"]) == ["p", "q", "s"]
    assert list(anti["a"]) == ["r", "t"]


def test_a_left_join_keeps_one_null_row_for_a_left_row_whose_pairs_all_fail(tmp_path):
    left = pd.DataFrame({"k": pd.array([1, 2, 3], dtype="Int64")})
    right = pd.DataFrame(
        {"k": pd.array([1, 1, 2], dtype="Int64"), "n": pd.array([5, 0, 0], dtype="Int64")}
    )
    params = {"how": "left", "left_on": "k", "right_on": "k", "condition": "n > 1"}
    out = joined(params, left, right, tmp_path)
    assert out["k"].tolist() == [1, 2, 3]
    assert out["n"].tolist() == [5, pd.NA, pd.NA]


def tpch() -> dict[str, pd.DataFrame]:
    """Orders, lineitems and customers shaped as TPC-H's (a few rows, nulls where it has none)."""
    rng = Random(28)
    orders = pd.DataFrame(
        {
            "o_orderkey": pd.array(range(1, 13), dtype="Int64"),
            "o_custkey": pd.array([rng.choice([1, 2, 3, 5]) for _ in range(12)], dtype="Int64"),
            "o_orderstatus": pd.array([rng.choice("FOP") for _ in range(12)], dtype="str"),
            "o_comment": pd.array(
                [rng.choice(["fine", "special requests", "pending"]) for _ in range(12)], "str"
            ),
        }
    )
    lineitem = pd.DataFrame(
        {
            "l_orderkey": pd.array([rng.randint(1, 14) for _ in range(40)], dtype="Int64"),
            "l_suppkey": pd.array([rng.randint(1, 4) for _ in range(40)], dtype="Int64"),
            "l_late": pd.array([rng.random() < 0.4 for _ in range(40)], dtype="boolean"),
        }
    )
    customer = pd.DataFrame({"c_custkey": pd.array(range(1, 7), dtype="Int64")})
    return {"orders": orders, "lineitem": lineitem, "customer": customer}


def duckdb_answer(sql: str, frames: dict[str, pd.DataFrame]) -> pd.DataFrame:
    with duckdb.connect() as connection:
        for name, table in frames.items():
            connection.register(name, table)
        return connection.execute(sql).df()


def test_q4_orders_with_a_late_lineitem_are_a_semi_join(tmp_path):
    frames = tpch()
    late = Step("late", "filter", {"condition": "l_late"}, {"in": "lineitem"})
    semi = Step(
        "q4",
        "join",
        {"how": "semi", "left_on": "o_orderkey", "right_on": "l_orderkey"},
        {"left": "orders", "right": "late"},
    )
    actual = assert_same([late, semi, in_order("q4")], frames, tmp_path, ordered=("ordered",))
    actual = actual["ordered"]
    expected = duckdb_answer(
        "SELECT * FROM orders o WHERE EXISTS (SELECT 1 FROM lineitem l "
        "WHERE l.l_orderkey = o.o_orderkey AND l.l_late) ORDER BY o_orderkey",
        frames,
    )
    assert actual["o_orderkey"].tolist() == expected["o_orderkey"].tolist()


@pytest.mark.parametrize("how", ["semi", "anti"])
def test_q21_other_suppliers_of_an_order_are_a_join_condition(tmp_path, how):
    frames = tpch()
    late = Step("late", "filter", {"condition": "l_late"}, {"in": "lineitem"})
    other = Step(
        "q21",
        "join",
        {
            "how": how,
            "left_on": ["l_orderkey"],
            "right_on": ["l_orderkey"],
            "condition": "l_suppkey_right <> l_suppkey_left",
        },
        {"left": "late", "right": "lineitem"},
    )
    actual = assert_same([late, other, in_order("q21")], frames, tmp_path, ordered=("ordered",))
    actual = actual["ordered"]
    exists = "EXISTS" if how == "semi" else "NOT EXISTS"
    expected = duckdb_answer(
        f"SELECT * FROM lineitem l1 WHERE l_late AND {exists} (SELECT 1 FROM lineitem l2 "
        "WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey)",
        frames,
    )
    assert_frames_match(
        actual.reset_index(drop=True), expected.astype(actual.dtypes.to_dict()), ordered=False
    )


def test_q13_customers_and_their_orders_without_special_requests_are_a_left_join(tmp_path):
    frames = tpch()
    customers_orders = Step(
        "customers_orders",
        "join",
        {
            "how": "left",
            "left_on": "c_custkey",
            "right_on": "o_custkey",
            "condition": "o_comment not in ('special requests')",
        },
        {"left": "customer", "right": "orders"},
    )
    counted = Step(
        "q13",
        "aggregate",
        {
            "group_by": ["c_custkey"],
            "aggregations": [{"column": "o_orderkey", "function": "count", "name": "c_count"}],
        },
        {"in": "customers_orders"},
    )
    actual = assert_same(
        [customers_orders, counted, in_order("q13")], frames, tmp_path, ordered=("ordered",)
    )
    actual = actual["ordered"]
    expected = duckdb_answer(
        "SELECT c_custkey, count(o_orderkey) AS c_count FROM customer LEFT JOIN orders "
        "ON c_custkey = o_custkey AND o_comment NOT IN ('special requests') "
        "GROUP BY c_custkey ORDER BY c_custkey",
        frames,
    )
    assert actual["c_count"].tolist() == expected["c_count"].tolist()
    assert 0 in actual["c_count"].tolist()  # a customer with none: one row of nulls
