"""Rows added, removed and changed between two stored results, matched by keys: what counts
as the same (null keys, nulls, NaN, float noise, type changes), repeated keys, keys that are
not there, hostile column names, and the bounds on time."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from runtime.errors import ComparisonError
from runtime.results.comparison.rows import SAMPLE, Side, compare_rows


def stored(folder: Path, name: str, columns: dict) -> Side:
    path = folder / f"{name}.parquet"
    pq.write_table(pa.table(columns), path)
    return Side(f"run #{name}'s result", path)


def compare(tmp_path, a: dict, b: dict, keys, **options) -> dict:
    first, second = stored(tmp_path, "1", a), stored(tmp_path, "2", b)
    return compare_rows(first, second, keys, spill_dir=tmp_path / "spill", **options)


def counts(found: dict) -> tuple[int, int, int, int]:
    return found["added"], found["removed"], found["changed"], found["unchanged"]


def test_rows_only_in_b_are_added_only_in_a_removed_and_differing_ones_changed(tmp_path):
    found = compare(
        tmp_path,
        {"id": [1, 2, 3, 4], "name": ["ann", "bob", "cy", "dee"], "age": [30, 40, 50, 60]},
        {"id": [2, 3, 4, 5], "name": ["bob", "CY", "dee", "eve"], "age": [40, 50, 61, 20]},
        ["id"],
    )
    assert found["status"] == "compared"
    assert counts(found) == (1, 1, 2, 1)
    assert found["changed_by_column"] == {"name": 1, "age": 1}
    assert found["samples"]["added"] == [{"id": 5, "name": "eve", "age": 20}]
    assert found["samples"]["removed"] == [{"id": 1, "name": "ann", "age": 30}]
    assert found["samples"]["changed"] == [
        {"key": {"id": 3}, "changes": {"name": {"a": "cy", "b": "CY"}}},
        {"key": {"id": 4}, "changes": {"age": {"a": 60, "b": 61}}},
    ]


def test_identical_results_have_no_differences(tmp_path):
    columns = {"id": [1, 2], "v": [1.5, None]}
    found = compare(tmp_path, columns, columns, ["id"])
    assert counts(found) == (0, 0, 0, 2)
    assert found["samples"] == {"added": [], "removed": [], "changed": []}


def test_a_null_key_matches_a_null_key(tmp_path):
    found = compare(
        tmp_path,
        {"id": [1, None], "v": ["a", "b"]},
        {"id": [1, None], "v": ["a", "c"]},
        ["id"],
    )
    assert counts(found) == (0, 0, 1, 1)
    assert found["samples"]["changed"] == [
        {"key": {"id": None}, "changes": {"v": {"a": "b", "b": "c"}}}
    ]


def test_composite_keys_match_on_every_key_null_parts_included(tmp_path):
    found = compare(
        tmp_path,
        {"country": ["FR", "FR", None], "year": [2020, 2021, 2020], "n": [1, 2, 3]},
        {"country": ["FR", "FR", None], "year": [2020, 2022, 2020], "n": [1, 2, 4]},
        ["country", "year"],
    )
    assert counts(found) == (1, 1, 1, 1)
    assert found["samples"]["added"] == [{"country": "FR", "year": 2022, "n": 2}]
    assert found["samples"]["changed"][0]["key"] == {"country": None, "year": 2020}


def test_a_null_value_differs_from_any_value_and_equals_null(tmp_path):
    found = compare(
        tmp_path,
        {"id": [1, 2, 3, 4], "v": [None, None, 1.0, "x" and 2.0], "s": [None, "a", None, "b"]},
        {"id": [1, 2, 3, 4], "v": [None, 0.0, None, 2.0], "s": [None, "a", "", "b"]},
        ["id"],
    )
    assert counts(found) == (0, 0, 2, 2)
    changed = {row["key"]["id"]: row["changes"] for row in found["samples"]["changed"]}
    assert changed == {
        2: {"v": {"a": None, "b": 0.0}},
        3: {"v": {"a": 1.0, "b": None}, "s": {"a": None, "b": ""}},
    }


def test_float_noise_within_a_billionth_is_not_a_change_but_more_is(tmp_path):
    """The same sums computed on pandas and on DuckDB differ in their last bits."""
    found = compare(
        tmp_path,
        {"id": [1, 2, 3, 4, 5], "x": [0.1 + 0.2, 1e12, 1.0, 0.0, 1.0]},
        {"id": [1, 2, 3, 4, 5], "x": [0.3, 1e12 + 100, 1.0 + 1e-6, 1e-10, 1.0 + 2e-9]},
        ["id"],
    )
    changed = [row["key"]["id"] for row in found["samples"]["changed"]]
    assert changed == [3, 5]  # 1e12 + 100 is within 1e-9 of its size; 1e-10 of zero


def test_nan_and_infinities_equal_themselves_and_differ_from_any_number(tmp_path):
    nan, inf = float("nan"), float("inf")
    found = compare(
        tmp_path,
        {"id": [1, 2, 3, 4, 5], "x": [nan, nan, inf, inf, -inf]},
        {"id": [1, 2, 3, 4, 5], "x": [nan, 1.0, inf, 1e300, inf]},
        ["id"],
    )
    assert counts(found) == (0, 0, 3, 2)
    assert found["samples"]["changed"] == [
        {"key": {"id": 2}, "changes": {"x": {"a": "nan", "b": 1.0}}},
        {"key": {"id": 4}, "changes": {"x": {"a": "inf", "b": 1e300}}},
        {"key": {"id": 5}, "changes": {"x": {"a": "-inf", "b": "inf"}}},
    ]


def test_a_column_whose_type_changed_compares_as_numbers_or_as_text(tmp_path):
    found = compare(
        tmp_path,
        {"id": [1, 2], "n": [1, 2], "code": [10, 20]},
        {"id": [1, 2], "n": [1.0, 2.5], "code": ["10", "21"]},
        ["id"],
    )
    assert found["changed_by_column"] == {"n": 1, "code": 1}
    assert found["samples"]["changed"] == [
        {"key": {"id": 2}, "changes": {"n": {"a": 2, "b": 2.5}, "code": {"a": 20, "b": "21"}}}
    ]


def test_keys_of_different_types_still_match(tmp_path):
    found = compare(tmp_path, {"id": [1, 2], "v": [1, 2]}, {"id": ["1", "3"], "v": [1, 2]}, ["id"])
    assert counts(found) == (1, 1, 0, 1)


def test_columns_only_one_side_has_are_not_row_changes(tmp_path):
    found = compare(
        tmp_path, {"id": [1], "old": ["x"], "v": [1]}, {"id": [1], "v": [1], "new": [2]}, ["id"]
    )
    assert found["columns"] == ["v"]
    assert counts(found) == (0, 0, 0, 1)


def test_dates_and_times_come_back_as_iso_text(tmp_path):
    found = compare(
        tmp_path,
        {"id": [1], "day": [dt.date(2024, 1, 2)], "at": [dt.datetime(2024, 1, 2, 3, 4, 5)]},
        {"id": [1], "day": [dt.date(2024, 1, 3)], "at": [dt.datetime(2024, 1, 2, 3, 4, 5)]},
        ["id"],
    )
    assert found["samples"]["changed"] == [
        {"key": {"id": 1}, "changes": {"day": {"a": "2024-01-02", "b": "2024-01-03"}}}
    ]


def test_samples_are_the_first_rows_in_key_order_and_counts_are_all_of_them(tmp_path):
    ids = list(range(1000))
    found = compare(
        tmp_path, {"id": ids[::-1], "v": [0] * 1000}, {"id": ids, "v": [1] * 1000}, ["id"]
    )
    assert found["changed"] == 1000
    assert [row["key"]["id"] for row in found["samples"]["changed"]] == list(range(SAMPLE))


def test_repeated_keys_give_no_counts_but_say_which_values_repeat(tmp_path):
    found = compare(
        tmp_path,
        {"id": [1, 1, 2, 3, 3, 3], "v": [1, 2, 3, 4, 5, 6]},
        {"id": [1, 2, 3], "v": [1, 2, 3]},
        ["id"],
    )
    assert found["status"] == "duplicate_keys"
    assert found["duplicates"]["a"] == {"values": 2, "rows": 5, "examples": [{"id": 1}, {"id": 3}]}
    assert found["duplicates"]["b"] == {"values": 0, "rows": 0, "examples": []}
    assert "added" not in found
    assert found["message"] == (
        "the keys (id) do not identify one row: run #1's result has 2 key value(s) on 5 rows that "
        "repeat; pick keys that are unique"
    )


def test_two_null_keys_on_one_side_are_a_repeated_key(tmp_path):
    found = compare(
        tmp_path, {"id": [1, 2], "v": [1, 2]}, {"id": [None, None], "v": [1, 2]}, ["id"]
    )
    assert found["status"] == "duplicate_keys"
    assert found["duplicates"]["b"]["examples"] == [{"id": None}]


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        (["nope"], "key 'nope' is not a column of run #1's result (its columns: id, v)"),
        (["id", "only_b"], "key 'only_b' is not a column of run #1's result"),
        ([], "name at least one key column"),
        (["id", "id"], "key 'id' is named twice"),
        ([f"k{i}" for i in range(17)], "name at most 16 key columns"),
    ],
    ids=["unknown", "on-one-side-only", "none", "twice", "too-many"],
)
def test_keys_at_fault_are_refused_naming_the_key_and_the_run(tmp_path, keys, message):
    with pytest.raises(ComparisonError, match=f"^{re.escape(message)}") as raised:
        compare(tmp_path, {"id": [1], "v": [1]}, {"id": [1], "v": [1], "only_b": [1]}, keys)
    assert raised.value.field == "keys"


def test_a_key_missing_from_the_second_run_names_that_run(tmp_path):
    with pytest.raises(ComparisonError, match=r"^key 'v' is not a column of run #2's result"):
        compare(tmp_path, {"id": [1], "v": [1]}, {"id": [1]}, ["v"])


HOSTILE = ['we"ird', "it's", "ünï cödé ✓", "a,b", 'x") ; DROP TABLE t; --', "select", " "]


def test_column_names_with_quotes_unicode_and_sql_compare_as_any_other(tmp_path):
    a = {name: [1, 2] for name in HOSTILE}
    b = {name: [1, 3] for name in HOSTILE}
    found = compare(tmp_path, a, b, [HOSTILE[0], "it's"])
    assert found["keys"] == [HOSTILE[0], "it's"]
    assert counts(found) == (1, 1, 0, 1)
    assert list(found["samples"]["added"][0]) == HOSTILE


def test_a_column_name_with_a_nul_character_is_refused_clearly(tmp_path):
    with pytest.raises(ComparisonError, match="NUL character"):
        compare(tmp_path, {"id": [1], "a\x00b": [1]}, {"id": [1], "a\x00b": [1]}, ["id"])


def test_a_comparison_past_its_time_is_stopped_with_a_clear_message(tmp_path):
    rows = 3_000_000
    side = {"id": pa.array(range(rows)), "v": pa.array(range(rows))}
    with pytest.raises(ComparisonError, match=r"took longer than 0\.01 s and was stopped"):
        compare(tmp_path, side, side, ["id"], timeout_s=0.01)
    assert not any((tmp_path / "spill").iterdir())  # its spill folder is gone


def test_the_spill_folder_of_a_comparison_is_removed_after_it(tmp_path):
    compare(tmp_path, {"id": [1]}, {"id": [2]}, ["id"])
    assert list((tmp_path / "spill").iterdir()) == []
