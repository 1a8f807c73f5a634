"""A join on DuckDB (a semi or anti one too) matches null keys to each other (pandas' merge
does) only where both keys may be null; where one side cannot be null (its frame holds none, a
filter rejected them, drop-nulls dropped them) its key pair is a plain `=`, which DuckDB plans
as a hash join on an equality. Answers stay pandas' either way."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.runtime.backends.both import Step, assert_same, explained


def left() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "k": pd.array([1, 2, None, 4, None], dtype="Int64"),
            "a": pd.array(["p", "q", "r", "s", "t"], dtype="str"),
        }
    )


def right(nulls: bool = True) -> pd.DataFrame:
    keys = [1, None, 4, 4] if nulls else [1, 3, 4, 4]
    return pd.DataFrame(
        {"k2": pd.array(keys, dtype="Int64"), "b": pd.array([10, 20, 30, 40], dtype="Int64")}
    )


def join(how: str, left_from: str = "l") -> Step:
    params = {"how": how, "left_on": ["k"], "right_on": ["k2"]}
    return Step("j", "join", params, {"left": left_from, "right": "r"})


def joins_of(steps: list[Step], frames: dict, root) -> list[tuple[str, str]]:
    """Each join of DuckDB's plan (EXPLAIN) of the last step's query as the renderer renders
    it: the operator and its condition, its two columns in name order (`k = k2`; DuckDB
    writes them build side last)."""
    return [
        (node["name"], _ordered(node["extra_info"]["Conditions"]))
        for node in explained(steps, frames, root)
        if "JOIN" in node["name"]
    ]


def _ordered(condition: str) -> str:
    for comparison in (" IS NOT DISTINCT FROM ", " = "):
        if comparison in condition:
            return comparison.join(sorted(condition.split(comparison))).strip()
    return condition


KEPT = Step("kept", "filter", {"condition": "k > 0"}, {"in": "l"})
DROPPED = Step("kept", "drop_nulls", {"columns": ["k"]}, {"in": "l"})


@pytest.mark.parametrize("how", ["inner", "left", "right", "outer", "semi", "anti"])
def test_keys_null_on_both_sides_match_each_other_as_in_pandas(tmp_path, how):
    frames = {"l": left(), "r": right()}
    assert_same([join(how)], frames, tmp_path)
    assert joins_of([join(how)], frames, tmp_path) == [("HASH_JOIN", "k IS NOT DISTINCT FROM k2")]


@pytest.mark.parametrize("how", ["inner", "left", "right", "outer", "semi", "anti"])
@pytest.mark.parametrize("before", [KEPT, DROPPED], ids=["filter", "drop_nulls"])
def test_a_key_whose_nulls_were_rejected_joins_with_equals(tmp_path, how, before):
    steps, frames = [before, join(how, "kept")], {"l": left(), "r": right()}
    assert_same(steps, frames, tmp_path)
    assert joins_of(steps, frames, tmp_path) == [("HASH_JOIN", "k = k2")]


@pytest.mark.parametrize("how", ["inner", "left", "right", "outer", "semi", "anti"])
def test_a_frame_without_null_keys_joins_with_equals(tmp_path, how):
    frames = {"l": left(), "r": right(nulls=False)}
    assert_same([join(how)], frames, tmp_path)
    assert joins_of([join(how)], frames, tmp_path) == [("HASH_JOIN", "k = k2")]


def test_a_key_a_filter_does_not_test_still_matches_nulls(tmp_path):
    other = Step("kept", "filter", {"condition": "a != 'p' or k > 0"}, {"in": "l"})
    steps, frames = [other, join("inner", "kept")], {"l": left(), "r": right()}
    assert_same(steps, frames, tmp_path)
    assert joins_of(steps, frames, tmp_path) == [("HASH_JOIN", "k IS NOT DISTINCT FROM k2")]


def test_an_empty_frame_says_nothing_of_the_rows_a_script_will_give(tmp_path):
    """A compiled script renders its segments over empty tables of the frames' columns."""
    frames = {"l": left().iloc[:0], "r": right(nulls=False).iloc[:0]}
    assert joins_of([join("inner")], frames, tmp_path) == [
        ("HASH_JOIN", "k IS NOT DISTINCT FROM k2")
    ]


def test_keys_through_an_aggregate_and_a_select_keep_what_is_known(tmp_path):
    steps = [
        DROPPED,
        Step(
            "g",
            "aggregate",
            {"group_by": ["k"], "aggregations": [{"function": "size", "name": "n"}]},
            {"in": "kept"},
        ),
        Step("s", "select", {"rename": {"k": "key"}}, {"in": "g"}),
        Step(
            "j",
            "join",
            {"how": "left", "left_on": ["key"], "right_on": ["k2"]},
            {"left": "s", "right": "r"},
        ),
    ]
    frames = {"l": left(), "r": right()}
    assert_same(steps, frames, tmp_path)
    assert joins_of(steps, frames, tmp_path) == [("HASH_JOIN", "k2 = key")]


def test_a_parquet_column_every_file_declares_required_joins_with_equals(tmp_path):
    """pyarrow writes a non-null field as required (tpchgen-cli writes TPC-H so); a key the
    other side reads from a file of optional columns, nulls and all, still matches pandas,
    and once one file of the pattern declares it optional, nulls match again."""
    required = pa.schema([pa.field("k", pa.int64(), nullable=False), pa.field("a", pa.string())])
    for name, keys in (("one", [1, 2, 4]), ("two", [4, 5])):
        table = pa.table({"k": keys, "a": [f"{name}{key}" for key in keys]}, schema=required)
        pq.write_table(table, tmp_path / f"req_{name}.parquet")
    pq.write_table(pa.table({"k2": [1, None, 4, 4], "b": [1, 2, 3, 4]}), tmp_path / "opt.parquet")
    steps = [
        Step("l", "parquet_input", {"path": "req_*.parquet"}),
        Step("r", "parquet_input", {"path": "opt.parquet"}),
        join("outer"),
    ]
    assert_same(steps, {}, tmp_path)
    assert joins_of(steps, {}, tmp_path) == [("HASH_JOIN", "k = k2")]
    pq.write_table(pa.table({"k": [7, None], "a": ["x", "y"]}), tmp_path / "req_three.parquet")
    assert_same(steps, {}, tmp_path)  # one file of the pattern may hold nulls: they match
    assert joins_of(steps, {}, tmp_path) == [("HASH_JOIN", "k IS NOT DISTINCT FROM k2")]


def test_parquet_columns_that_may_be_null_keep_matching_nulls(tmp_path):
    pq.write_table(pa.table({"k": [1, None], "a": ["x", "y"]}), tmp_path / "l.parquet")
    pq.write_table(pa.table({"k2": [None, 1], "b": [1, 2]}), tmp_path / "r.parquet")
    steps = [
        Step("l", "parquet_input", {"path": "l.parquet"}),
        Step("r", "parquet_input", {"path": "r.parquet"}),
        join("inner"),
    ]
    assert_same(steps, {}, tmp_path)
    assert joins_of(steps, {}, tmp_path) == [("HASH_JOIN", "k IS NOT DISTINCT FROM k2")]
