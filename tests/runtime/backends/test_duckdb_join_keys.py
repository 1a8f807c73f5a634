"""A join on DuckDB matches null keys to each other (pandas' merge does) only where both keys
may be null; where one side cannot be null (its frame holds none, a filter rejected them,
drop-nulls dropped them) its key pair is a plain `=`, which DuckDB plans as a hash join on
an equality. Answers stay pandas' either way."""

from __future__ import annotations

import json

import duckdb
import pandas as pd
import pytest

from runtime.backends.duckdb.render import Renderer
from runtime.backends.duckdb.segment import frame_table
from runtime.io.paths import FileArea
from tests.runtime.backends.both import Step, assert_same, lower_all, run_pandas


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
    _, schemas = run_pandas(steps, frames, root)
    members = lower_all(steps, frames, schemas)
    renderer = Renderer(FileArea.of(root), lambda source: frame_table(frames[source[0]]))
    [rendered] = renderer.render([members[steps[-1].id]["out"]])
    sql, params = renderer.query.exit_sql(rendered)
    with duckdb.connect() as connection:
        for name, table in renderer.query.tables.items():
            connection.register(name, table)
        [(_, plan)] = connection.execute(f"EXPLAIN (FORMAT JSON) {sql}", params).fetchall()
    found, pending = [], json.loads(plan)
    while pending:
        node = pending.pop()
        pending += node.get("children", [])
        if "JOIN" in node["name"]:
            found.append((node["name"], _ordered(node["extra_info"]["Conditions"])))
    return found


def _ordered(condition: str) -> str:
    for comparison in (" IS NOT DISTINCT FROM ", " = "):
        if comparison in condition:
            return comparison.join(sorted(condition.split(comparison))).strip()
    return condition


KEPT = Step("kept", "filter", {"condition": "k > 0"}, {"in": "l"})
DROPPED = Step("kept", "drop_nulls", {"columns": ["k"]}, {"in": "l"})


@pytest.mark.parametrize("how", ["inner", "left", "right", "outer"])
def test_keys_null_on_both_sides_match_each_other_as_in_pandas(tmp_path, how):
    frames = {"l": left(), "r": right()}
    assert_same([join(how)], frames, tmp_path)
    assert joins_of([join(how)], frames, tmp_path) == [("HASH_JOIN", "k IS NOT DISTINCT FROM k2")]


@pytest.mark.parametrize("how", ["inner", "left", "right", "outer"])
@pytest.mark.parametrize("before", [KEPT, DROPPED], ids=["filter", "drop_nulls"])
def test_a_key_whose_nulls_were_rejected_joins_with_equals(tmp_path, how, before):
    steps, frames = [before, join(how, "kept")], {"l": left(), "r": right()}
    assert_same(steps, frames, tmp_path)
    assert joins_of(steps, frames, tmp_path) == [("HASH_JOIN", "k = k2")]


@pytest.mark.parametrize("how", ["inner", "left", "right", "outer"])
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
