"""Evaluation over real frames: indexes, constants, masks, reuse, and unusual dtypes
or column names.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from runtime.expressions import (
    compile_expression,
    condition_array,
    evaluate,
    filter_mask,
    infer_type,
)
from runtime.tables.schema import schema_of
from tests.runtime.expressions.conftest import fails, values


def test_results_keep_the_frames_index(people):
    assert list(evaluate("age + 1", people).index) == ["a", "b", "c", "d"]
    assert list(filter_mask("age > 18", people).index) == ["a", "b", "c", "d"]


def test_constants_are_broadcast_to_every_row(people):
    result = evaluate("1 + 2", people)
    assert list(result) == [3] * 4 and list(result.index) == list(people.index)


def test_constants_over_an_empty_frame_give_an_empty_series():
    empty = pd.DataFrame({"age": pd.Series([], dtype="int64")})
    assert len(evaluate("'x'", empty)) == 0
    assert len(evaluate("age > 1", empty)) == 0
    assert filter_mask("true", empty).dtype == bool


def test_a_compiled_expression_can_be_reused_on_many_frames(people):
    adults = compile_expression("age >= 18", schema_of(people))
    assert list(adults(people)) == [False, True, True, True]
    assert list(adults(people.iloc[:1])) == [False]


def test_filter_mask_is_plain_bool_without_nulls(people):
    mask = filter_mask("member", people)
    assert mask.dtype == bool
    assert list(mask) == [True, False, False, True]


def test_condition_array_is_a_numpy_mask_by_position_with_null_as_false(people):
    mask = condition_array("score > 1", people)  # people's index is labels, not positions
    assert isinstance(mask, np.ndarray) and mask.dtype == bool
    assert mask.tolist() == list(filter_mask("score > 1", people))


def test_a_frame_whose_column_names_are_not_strings_can_still_be_filtered():
    frame = pd.DataFrame({0: [1, 5], "age": [20, 10]})
    assert condition_array("`0` > 2 or age > 15", frame).tolist() == [True, True]


def test_a_null_filter_keeps_no_rows(people):
    assert list(filter_mask("null", people)) == [False] * 4


def test_comparing_zoned_and_naive_datetimes_is_an_error_when_run():
    naive = pd.Series(pd.to_datetime(["2024-01-01"]))
    frame = pd.DataFrame({"naive": naive, "zoned": naive.dt.tz_localize("UTC")})
    with fails(
        "cannot evaluate 'naive = zoned' at 1:1; "
        "cannot compare a time-zone-aware datetime with a naive one"
    ):
        evaluate("naive = zoned", frame)


def test_infer_type_checks_columns_and_types(people):
    with fails("unknown column 'agee' at 1:1; did you mean 'age'?"):
        infer_type("agee + 1", schema_of(people))
    with fails("'-' expects numbers but 'name' is string at 1:1"):
        infer_type("name - 1", schema_of(people))


def test_duplicate_index_labels_and_non_string_column_names_are_handled():
    frame = pd.DataFrame({0: [1, 2, 3], "b": ["x", "y", None]}, index=[7, 7, 7])
    assert values("`0` * 2 + len(b)", frame) == [3, 5, None]


def test_columns_are_converted_from_other_dtypes():
    frame = pd.DataFrame(
        {
            "small": pd.Series([1, 2], dtype="int8"),
            "arrow": pd.Series(["a", None], dtype="string[pyarrow]"),
            "mixed": pd.Series([1, "b"], dtype=object),
        }
    )
    assert values("small * 100", frame) == [100, 200]
    assert values("upper(arrow)", frame) == ["A", None]
    assert values("mixed + '!'", frame) == ["1!", "b!"]
