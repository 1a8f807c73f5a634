"""`sort`, `deduplicate`, `limit`, `sample` and `drop_nulls`: rows chosen or ordered."""

from __future__ import annotations

import pandas as pd
import pytest

from runtime.errors import ParamsError
from runtime.operators.rows import Deduplicate, DropNulls, Limit, Sample, Sort
from runtime.tables.schema import schema_of
from tests.runtime.operators.contract import OperatorContract, make_ctx

PEOPLE = pd.DataFrame(
    {
        "name": pd.array(["ada", "bob", "cy", "dee", "eve", "fay"], dtype="str"),
        "team": pd.array(["x", "y", "x", None, "y", "x"], dtype="str"),
        "score": pd.array([3, 1, 3, 2, None, 1], dtype="Int64"),
    }
)


def run(operator_cls, params: dict, frame: pd.DataFrame = PEOPLE) -> pd.DataFrame:
    operator = operator_cls()
    return operator.run(make_ctx(operator, params, "."), {"in": frame})["out"]


class TestSortContract(OperatorContract):
    operator_cls = Sort
    params = {"by": [{"column": "team"}, {"column": "score", "descending": True}]}
    inputs = {"in": PEOPLE}
    bad_params = [
        ({"by": []}, r"params\.by: Sort by: must not be empty"),
        (
            {"by": [{"column": "a", "desc": True}]},
            r"params\.by\.0\.desc: Sort by, item 1, desc: unknown field; remove it or check its",
        ),
    ]


def test_sort_orders_by_several_columns_with_nulls_last():
    out = run(Sort, {"by": [{"column": "team"}, {"column": "score", "descending": True}]})
    assert out["name"].tolist() == ["ada", "cy", "fay", "bob", "eve", "dee"]


def test_nulls_come_last_even_when_descending_unless_asked_first():
    by = [{"column": "score", "descending": True}]
    assert run(Sort, {"by": by})["name"].tolist()[-1] == "eve"
    assert run(Sort, {"by": by, "nulls_last": False})["name"].tolist()[0] == "eve"


def test_rows_that_tie_keep_their_input_order():
    out = run(Sort, {"by": [{"column": "score"}]})
    assert out["name"].tolist() == ["bob", "fay", "dee", "ada", "cy", "eve"]


def test_sorting_by_an_unknown_column_is_refused_at_its_field():
    with pytest.raises(ParamsError, match=r"by\[1\]\.column: unknown column 'scor'"):
        run(Sort, {"by": [{"column": "name"}, {"column": "scor"}]})


class TestDeduplicateContract(OperatorContract):
    operator_cls = Deduplicate
    params = {"columns": ["team"], "keep": "last"}
    inputs = {"in": PEOPLE}
    bad_params = [({"keep": "middle"}, r"params\.keep: Keep: must be one of 'first' or 'last'")]


def test_deduplicate_keeps_the_first_row_of_each_group_in_input_order():
    assert run(Deduplicate, {"columns": ["team"]})["name"].tolist() == ["ada", "bob", "dee"]


def test_deduplicate_can_keep_the_last_row_instead():
    out = run(Deduplicate, {"columns": ["team"], "keep": "last"})
    assert out["name"].tolist() == ["dee", "eve", "fay"]


def test_without_columns_only_rows_equal_in_every_column_are_duplicates():
    frame = pd.concat([PEOPLE, PEOPLE.iloc[[1]]], ignore_index=True)
    assert len(run(Deduplicate, {}, frame)) == len(PEOPLE)


def test_deduplicating_on_an_unknown_column_is_refused():
    with pytest.raises(ParamsError, match=r"columns: unknown column 'teem'; did you mean 'team'\?"):
        run(Deduplicate, {"columns": ["teem"]})


class TestLimitContract(OperatorContract):
    operator_cls = Limit
    params = {"n": 2}
    inputs = {"in": PEOPLE}
    bad_params = [
        ({}, r"params\.n: Rows: required"),
        ({"n": -1}, r"params\.n: Rows: must be at least 0"),
    ]


def test_limit_keeps_the_first_rows():
    assert run(Limit, {"n": 2})["name"].tolist() == ["ada", "bob"]
    assert len(run(Limit, {"n": 100})) == len(PEOPLE)


class TestSampleContract(OperatorContract):
    operator_cls = Sample
    params = {"n": 3, "seed": 7}
    inputs = {"in": PEOPLE}
    bad_params = [
        ({}, r"params: set n or fraction$"),
        ({"n": 1, "fraction": 0.5}, r"params: set n or fraction, not both"),
        ({"fraction": 1.5}, r"params\.fraction: Fraction: must be at most 1"),
    ]


def test_the_same_seed_draws_the_same_rows_in_input_order():
    first = run(Sample, {"n": 3, "seed": 7})["name"].tolist()
    assert first == run(Sample, {"n": 3, "seed": 7})["name"].tolist()
    positions = [PEOPLE["name"].tolist().index(name) for name in first]
    assert positions == sorted(positions) and len(set(first)) == 3


def test_a_fraction_draws_that_share_of_the_rows():
    assert len(run(Sample, {"fraction": 0.5, "seed": 1})) == 3


def test_asking_for_more_rows_than_there_are_gives_all_of_them():
    assert run(Sample, {"n": 100})["name"].tolist() == PEOPLE["name"].tolist()


class TestDropNullsContract(OperatorContract):
    operator_cls = DropNulls
    params = {"columns": ["team"]}
    inputs = {"in": PEOPLE}
    bad_params = [({"columns": "a"}, r"params\.columns: Columns: must be a list")]


def test_drop_nulls_drops_rows_with_a_null_in_the_columns():
    assert run(DropNulls, {"columns": ["team"]})["name"].tolist() == [
        "ada", "bob", "cy", "eve", "fay"
    ]  # fmt: skip


def test_without_columns_a_null_anywhere_drops_the_row():
    assert run(DropNulls, {})["name"].tolist() == ["ada", "bob", "cy", "fay"]


def test_the_checked_columns_are_no_longer_nullable():
    operator = DropNulls()
    ctx = make_ctx(operator, {"columns": ["score"]}, ".")
    schema = operator.output_schema(ctx, {"in": schema_of(PEOPLE)})["out"]
    assert not schema.get("score").nullable
    assert schema.get("team").nullable
