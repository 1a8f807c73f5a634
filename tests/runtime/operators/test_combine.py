"""`join` and `union`: two tables side by side, or several one under another."""

from __future__ import annotations

import pandas as pd
import pytest

from runtime.errors import OperatorError, ParamsError
from runtime.operators.combine import Join, Union
from runtime.tables.schema import schema_of
from tests.runtime.operators.contract import (
    OperatorContract,
    assert_schema_predicts,
    input_schemas,
    make_ctx,
)

ORDERS = pd.DataFrame(
    {
        "id": pd.array([10, 11, 12, 13], dtype="Int64"),
        "customer": pd.array([1, 2, 1, 9], dtype="Int64"),
        "note": pd.array(["a", "b", "c", "d"], dtype="str"),
    }
)
CUSTOMERS = pd.DataFrame(
    {
        "customer": pd.array([1, 2, 3], dtype="Int64"),
        "name": pd.array(["ada", "bob", "cy"], dtype="str"),
        "note": pd.array(["vip", None, "new"], dtype="str"),
    }
)


def join(params: dict, left: pd.DataFrame = ORDERS, right: pd.DataFrame = CUSTOMERS):
    """The joined frame, after checking that `output_schema` predicted it."""
    operator = Join()
    inputs = {"left": left, "right": right}
    predicted = operator.output_schema(
        make_ctx(operator, params, "."), input_schemas(operator, inputs)
    )["out"]
    out = operator.run(make_ctx(operator, params, "."), inputs)["out"]
    assert_schema_predicts(predicted, out)
    return out


class TestJoinContract(OperatorContract):
    operator_cls = Join
    params = {"how": "left", "left_on": "customer", "right_on": "customer"}
    inputs = {"left": ORDERS, "right": CUSTOMERS}
    bad_params = [
        ({"left_on": "a"}, r"params\.right_on: Right keys: required"),
        (
            {"left_on": ["a", "b"], "right_on": "a"},
            r"params\.right_on: Right keys: name as many right keys as left keys \(2\), but there",
        ),
        (
            {"left_on": "a", "right_on": "a", "how": "cross"},
            r"params\.how: Kind of join: must be one of 'inner', 'left', 'right', 'outer', 'semi' "
            r"or 'anti'",
        ),
        (
            {"left_on": "a", "right_on": "a", "suffixes": ["_x"]},
            r"params\.suffixes: Suffixes: must have at least 2 items",
        ),
    ]


@pytest.mark.parametrize("how", ["inner", "left", "right", "outer"])
def test_join_gives_what_pandas_merge_gives(how):
    params = {"how": how, "left_on": ["customer"], "right_on": ["customer"]}
    expected = ORDERS.merge(CUSTOMERS, how=how, on="customer", suffixes=("_left", "_right"))
    pd.testing.assert_frame_equal(join(params), expected)


def test_a_key_named_alike_on_both_sides_appears_once_and_overlaps_get_suffixes():
    out = join({"left_on": "customer", "right_on": "customer"})
    assert list(out.columns) == ["id", "customer", "note_left", "name", "note_right"]
    assert out["name"].tolist() == ["ada", "bob", "ada"]  # in the order of the left rows


def test_keys_with_different_names_both_stay():
    customers = CUSTOMERS.rename(columns={"customer": "customer_id"})
    out = join({"how": "outer", "left_on": "customer", "right_on": "customer_id"}, right=customers)
    assert list(out.columns) == ["id", "customer", "note_left", "customer_id", "name", "note_right"]


def test_several_keys_and_custom_suffixes():
    left = ORDERS.assign(region=pd.array(["n", "s", "n", "n"], dtype="str"))
    right = CUSTOMERS.assign(region=pd.array(["n", "s", "s"], dtype="str"))
    params = {"left_on": ["customer", "region"], "right_on": ["customer", "region"]}
    out = join({**params, "suffixes": ["", "_customer"]}, left, right)
    assert list(out.columns) == ["id", "customer", "note", "region", "name", "note_customer"]
    assert out["id"].tolist() == [10, 11, 12]


def test_keys_paired_crosswise_keep_both_names_with_suffixes():
    out = join({"left_on": ["customer", "id"], "right_on": ["id", "customer"]}, ORDERS, ORDERS)
    assert list(out.columns) == [
        "id_left", "customer_left", "note_left", "id_right", "customer_right", "note_right"
    ]  # fmt: skip


def test_keys_of_different_types_are_refused_with_the_cast_that_would_fix_them():
    customers = CUSTOMERS.assign(customer=CUSTOMERS["customer"].astype("str"))
    message = (
        r"right_on: join keys have different types: left 'customer' is integer but right "
        r"'customer' is string; convert one side with cast first \(right 'customer' to "
        r"integer, or left 'customer' to string\)"
    )
    with pytest.raises(ParamsError, match=message):
        join({"left_on": "customer", "right_on": "customer"}, right=customers)


@pytest.mark.parametrize("how", ["inner", "left", "right", "outer"])
def test_an_integer_key_joins_a_float_key_and_a_shared_key_becomes_float(how):
    customers = CUSTOMERS.assign(customer=[1.0, 2.0, 3.0])
    out = join({"how": how, "left_on": "customer", "right_on": "customer"}, right=customers)
    assert out["customer"].dtype == "float64"
    assert 1.0 in out["customer"].tolist()


def test_an_unknown_key_is_refused_at_its_side():
    with pytest.raises(ParamsError, match=r"right_on: unknown column 'custmer'"):
        join({"left_on": "customer", "right_on": "custmer"})


def test_suffixes_that_make_two_columns_alike_are_refused():
    right = CUSTOMERS.assign(note_left=pd.array(["x", "y", "z"], dtype="str"))
    with pytest.raises(
        ParamsError, match="suffixes: the joined table would have two columns named 'note_left'"
    ):
        join({"left_on": "customer", "right_on": "customer"}, right=right)


def test_overlapping_columns_without_any_suffix_are_refused():
    with pytest.raises(
        ParamsError, match="suffixes: both tables have a column named 'note'; give at least one"
    ):
        join({"left_on": "customer", "right_on": "customer", "suffixes": ["", ""]})


def test_the_side_that_may_miss_a_match_becomes_nullable():
    operator = Join()
    ctx = make_ctx(operator, {"how": "left", "left_on": "customer", "right_on": "customer"}, ".")
    customers = CUSTOMERS.assign(note=pd.array(["a", "b", "c"], dtype="str"))
    schema = operator.output_schema(
        ctx, {"left": schema_of(ORDERS), "right": schema_of(customers)}
    )["out"]
    assert [column.nullable for column in schema.columns] == [False, False, False, True, True]


def test_an_empty_left_side_still_gives_the_predicted_columns():
    out = join({"left_on": "customer", "right_on": "customer"}, left=ORDERS.iloc[:0])
    assert list(out.columns) == ["id", "customer", "note_left", "name", "note_right"]


JANUARY = pd.DataFrame(
    {"id": pd.array([1, 2], dtype="Int64"), "amount": pd.array([5, 6], dtype="Int64")}
)
FEBRUARY = pd.DataFrame(
    {"amount": [7.5], "id": pd.array([3], dtype="Int64"), "note": pd.array(["late"], dtype="str")}
)


def union(*frames: pd.DataFrame) -> pd.DataFrame:
    """The union, after checking that `output_schema` predicted it."""
    operator = Union()
    inputs = {"in": list(frames)}
    ctx = make_ctx(operator, {}, ".")
    predicted = operator.output_schema(ctx, input_schemas(operator, inputs))["out"]
    out = operator.run(ctx, inputs)["out"]
    assert_schema_predicts(predicted, out)
    return out


class TestUnionContract(OperatorContract):
    operator_cls = Union
    params = {}
    inputs = {"in": [JANUARY, FEBRUARY]}
    bad_params = [({"x": 1}, r"params\.x: x: unknown field; remove it or check its spelling")]


def test_union_stacks_in_order_and_aligns_columns_by_name():
    out = union(JANUARY, FEBRUARY)
    assert list(out.columns) == ["id", "amount", "note"]
    assert out["id"].tolist() == [1, 2, 3]
    assert out["note"].isna().tolist() == [True, True, False]
    assert list(out.index) == [0, 1, 2]


def test_integer_and_float_columns_stack_as_float():
    out = union(JANUARY, FEBRUARY)
    assert out["amount"].dtype == "float64"
    assert out["amount"].tolist() == [5.0, 6.0, 7.5]


def test_a_column_with_other_types_in_another_input_is_refused():
    other = pd.DataFrame({"id": pd.array(["x"], dtype="str")})
    with pytest.raises(
        OperatorError, match="column 'id' is integer in an earlier input but string in input 2"
    ):
        union(JANUARY, other)


def test_a_single_input_passes_through():
    assert union(JANUARY) is JANUARY
