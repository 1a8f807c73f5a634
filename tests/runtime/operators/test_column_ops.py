"""`transform`, `select`, `cast` and `fill_nulls`: columns change, rows stay in place."""

from __future__ import annotations

import datetime
import decimal

import pandas as pd
import pyarrow as pa
import pytest

from runtime.errors import ParamsError
from runtime.operators.column_ops import Cast, FillNulls, Select, Transform
from runtime.tables.schema import Column, Schema, date_dtype, schema_of
from tests.runtime.operators.contract import OperatorContract, make_ctx

ORDERS = pd.DataFrame(
    {
        "id": pd.array([1, 2, 3], dtype="Int64"),
        "name": pd.array(["ada", None, "alan"], dtype="str"),
        "quantity": pd.array([2, None, 5], dtype="Int64"),
        "price": [1.5, 2.0, None],
        "day": pd.array(["2024-01-31", "oops", None], dtype="str"),
    }
)


def run(operator_cls, params: dict, frame: pd.DataFrame = ORDERS) -> pd.DataFrame:
    operator = operator_cls()
    return operator.run(make_ctx(operator, params, "."), {"in": frame})["out"]


def predict(operator_cls, params: dict, schema: Schema) -> Schema:
    operator = operator_cls()
    return operator.output_schema(make_ctx(operator, params, "."), {"in": schema})["out"]


class TestTransformContract(OperatorContract):
    operator_cls = Transform
    params = {
        "mappings": [
            {"target": "total", "expression": "quantity * price"},
            {"target": "name", "expression": "upper(name)"},
            {"target": "big", "expression": "total > 5"},
            {"target": "when", "expression": "day", "type": "date"},
            {"target": "id", "expression": "id * 10", "type": "string"},
        ]
    }
    inputs = {"in": ORDERS}
    bad_params = [
        ({}, r"params\.mappings: Mappings: required"),
        ({"mappings": []}, r"params\.mappings: Mappings: must not be empty"),
        (
            {"mappings": [{"target": "x", "expression": "a +"}]},
            r"params\.mappings\.0\.expression: Mappings, item 1, Expression: unexpected end of",
        ),
        (
            {"mappings": [{"target": "x", "expression": "a", "type": "int"}]},
            r"params\.mappings\.0\.type: Mappings, item 1, Type: must be one of 'string'",
        ),
    ]


def test_a_mapping_may_use_the_columns_computed_before_it():
    out = run(
        Transform,
        {
            "mappings": [
                {"target": "total", "expression": "quantity * price"},
                {"target": "double", "expression": "total * 2"},
            ]
        },
    )
    assert out["double"].tolist()[0] == 6.0
    assert list(out.columns) == [*ORDERS.columns, "total", "double"]


def test_a_replaced_column_keeps_its_place_and_new_columns_go_at_the_end():
    out = run(
        Transform,
        {
            "mappings": [
                {"target": "extra", "expression": "1"},
                {"target": "name", "expression": "upper(name)"},
            ]
        },
    )
    assert list(out.columns) == ["id", "name", "quantity", "price", "day", "extra"]
    assert out["name"].tolist()[0] == "ADA"


def test_without_other_columns_the_output_is_the_targets_in_mapping_order():
    params = {
        "mappings": [
            {"target": "b", "expression": "id + 1"},
            {"target": "a", "expression": "b * 2"},
            {"target": "b", "expression": "a - 1"},
        ],
        "keep_other_columns": False,
    }
    out = run(Transform, params)
    assert list(out.columns) == ["b", "a"]
    assert out["b"].tolist() == [3, 5, 7]
    assert predict(Transform, params, schema_of(ORDERS)).names == ["b", "a"]


def test_a_type_converts_the_result_and_bad_values_become_null():
    out = run(Transform, {"mappings": [{"target": "day", "expression": "day", "type": "date"}]})
    assert out["day"].dtype == date_dtype()
    assert out["day"].tolist()[0] == datetime.date(2024, 1, 31)
    assert out["day"].isna().tolist() == [False, True, True]


def test_integer_and_boolean_results_follow_the_nullable_dtype_convention():
    frame = pd.DataFrame({"x": [1.5, 2.5]})
    out = run(
        Transform,
        {
            "mappings": [
                {"target": "n", "expression": "len('abc')"},
                {"target": "flag", "expression": "x > 2"},
            ]
        },
        frame,
    )
    assert str(out["n"].dtype) == "Int64"
    assert str(out["flag"].dtype) == "boolean"


def test_a_mapping_naming_an_unknown_column_is_refused_at_its_field():
    params = {
        "mappings": [
            {"target": "total", "expression": "quantity * price"},
            {"target": "x", "expression": "totl + 1"},
        ]
    }
    message = r"mappings\[1\]\.expression: unknown column 'totl' at 1:1; did you mean 'total'\?"
    with pytest.raises(ParamsError, match=message):
        predict(Transform, params, schema_of(ORDERS))
    with pytest.raises(ParamsError, match=message):
        run(Transform, params)


def test_transform_does_not_modify_its_input():
    before = ORDERS.copy()
    run(Transform, {"mappings": [{"target": "name", "expression": "upper(name)"}]})
    pd.testing.assert_frame_equal(ORDERS, before)


class TestSelectContract(OperatorContract):
    operator_cls = Select
    params = {"columns": ["price", "id"], "rename": {"id": "order_id"}}
    inputs = {"in": ORDERS}
    bad_params = [
        (
            {"columns": ["a", "a"]},
            r"params\.columns: Columns: 'a' is listed more than once; list each column once",
        ),
        ({"rename": {"a": ""}}, r"params\.rename\.a: Rename, a: must not be empty"),
    ]


def test_select_orders_and_renames_columns():
    out = run(Select, {"columns": ["price", "id"], "rename": {"id": "order_id"}})
    assert list(out.columns) == ["price", "order_id"]


def test_no_columns_keeps_all_of_them_in_input_order():
    out = run(Select, {"rename": {"name": "who"}})
    assert list(out.columns) == ["id", "who", "quantity", "price", "day"]


def test_renaming_to_a_name_another_column_has_is_refused():
    with pytest.raises(ParamsError, match="rename: two columns would be named 'id'"):
        run(Select, {"rename": {"name": "id"}})


def test_columns_may_swap_names():
    out = run(Select, {"columns": ["id", "name"], "rename": {"id": "name", "name": "id"}})
    assert list(out.columns) == ["name", "id"]
    assert out["name"].tolist() == [1, 2, 3]


def test_an_unknown_column_is_refused_with_a_suggestion():
    with pytest.raises(ParamsError, match=r"columns: unknown column 'nme'; did you mean 'name'\?"):
        predict(Select, {"columns": ["nme"]}, schema_of(ORDERS))


def test_renaming_a_column_that_is_not_selected_is_refused():
    with pytest.raises(ParamsError, match="rename: unknown column 'price'; the columns are: id"):
        run(Select, {"columns": ["id"], "rename": {"price": "cost"}})


class TestCastContract(OperatorContract):
    operator_cls = Cast
    params = {"types": {"day": "date", "quantity": "float", "id": "string", "price": "integer"}}
    inputs = {"in": ORDERS}
    bad_params = [
        ({}, r"params\.types: Types: required"),
        (
            {"types": {"a": "number"}},
            r"params\.types\.a: Types, a: must be one of 'string'",
        ),
    ]


def test_cast_converts_columns_and_keeps_their_places():
    out = run(Cast, {"types": {"price": "integer", "id": "string"}})
    assert list(out.columns) == list(ORDERS.columns)
    assert out["price"].tolist()[:2] == [2, 2]
    assert str(out["price"].dtype) == "Int64"
    assert out["id"].tolist() == ["1", "2", "3"]


def test_casting_an_unknown_column_is_refused():
    with pytest.raises(ParamsError, match=r"types: unknown column 'dya'; did you mean 'day'\?"):
        run(Cast, {"types": {"dya": "date"}})


class TestFillNullsContract(OperatorContract):
    operator_cls = FillNulls
    params = {"values": {"name": "unknown", "quantity": "0", "price": 0, "day": "2024-01-01"}}
    inputs = {"in": ORDERS}
    bad_params = [
        ({"values": {}}, r"params\.values: Values: must not be empty"),
        (
            {"values": {"a": None}},
            r"params\.values\.a: Values, a: null is not a text, a number, true or false",
        ),
    ]


def test_fill_nulls_puts_the_value_in_empty_cells_only():
    out = run(FillNulls, {"values": {"quantity": 0, "name": "?"}})
    assert out["quantity"].tolist() == [2, 0, 5]
    assert out["name"].tolist() == ["ada", "?", "alan"]
    assert out["price"].isna().tolist() == [False, False, True]


def test_the_value_is_converted_to_the_column_type():
    frame = pd.DataFrame({"when": pd.Series([datetime.date(2024, 1, 1), None], dtype=date_dtype())})
    out = run(FillNulls, {"values": {"when": "2020-05-06"}}, frame)
    assert out["when"].dtype == date_dtype()
    assert out["when"].tolist() == [datetime.date(2024, 1, 1), datetime.date(2020, 5, 6)]


@pytest.mark.parametrize(
    ("value", "column", "message"),
    [
        ("many", "quantity", r"values: \"many\" is not a valid integer for column 'quantity'"),
        (2.5, "quantity", r"values: 2\.5 is not a valid integer for column 'quantity'"),
        ("x", "price", r"values: \"x\" is not a valid float for column 'price'"),
    ],
    ids=["text", "fraction", "float"],
)
def test_a_value_that_does_not_fit_the_column_is_refused(value, column, message):
    with pytest.raises(ParamsError, match=message):
        predict(FillNulls, {"values": {column: value}}, schema_of(ORDERS))


def test_filled_columns_are_no_longer_nullable():
    schema = predict(FillNulls, {"values": {"price": 0}}, schema_of(ORDERS))
    assert schema.get("price") == Column("price", "float", False)
    assert schema.get("quantity").nullable


def test_fill_nulls_refuses_a_value_for_a_decimal_column_naming_it():
    prices = pd.DataFrame(
        {
            "price": pd.array(
                [decimal.Decimal("1.10"), None], dtype=pd.ArrowDtype(pa.decimal128(15, 2))
            )
        }
    )
    with pytest.raises(ParamsError, match=r"column 'price' is decimal.*cast it to float first"):
        run(FillNulls, {"values": {"price": 0.5}}, prices)
