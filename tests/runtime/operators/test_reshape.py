"""`pivot` and `unpivot`: values made columns and columns made rows, their dtypes, and bad
params reported at the node and field before anything runs."""

from __future__ import annotations

import pandas as pd
import pytest

from runtime.checks.inference import infer_schemas
from runtime.document.spec import load_document
from runtime.operators.reshape import Pivot, Unpivot
from runtime.tables.schema import schema_of
from tests.runtime.operators.contract import OperatorContract, assert_schema_predicts, make_ctx

SALES = pd.DataFrame(
    {
        "shop": pd.array(["b", "a", "b", None, "a", "c"], dtype="str"),
        "month": pd.array([1, 2, 1, 2, 3, None], dtype="Int64"),
        "units": pd.array([1, 2, None, 4, 5, 6], dtype="Int64"),
        "price": [1.5, 2.0, 3.0, None, 4.0, 1.0],
    }
)
BY_MONTH = {"index": ["shop"], "column": "month", "values": [1, 2, 4], "value": "units"}


def run(operator, params: dict, frame: pd.DataFrame = SALES) -> pd.DataFrame:
    """The output, after checking that `output_schema` predicted it."""
    predicted = operator.output_schema(make_ctx(operator, params, "."), {"in": schema_of(frame)})
    out = operator.run(make_ctx(operator, params, "."), {"in": frame})["out"]
    assert_schema_predicts(predicted["out"], out)
    return out


class TestPivotContract(OperatorContract):
    operator_cls = Pivot
    params = {**BY_MONTH, "function": "mean", "names": "m{value}"}
    inputs = {"in": SALES}
    bad_params = [
        ({**BY_MONTH, "values": []}, r"params\.values: Values: must not be empty"),
        ({**BY_MONTH, "function": "median"}, r"params\.function: Function: must be one of"),
        ({**BY_MONTH, "values": [None]}, r"params\.values\.0: .*null is not a text, a number"),
    ]


class TestUnpivotContract(OperatorContract):
    operator_cls = Unpivot
    params = {"index": ["shop"], "columns": ["units", "price"]}
    inputs = {"in": SALES}
    bad_params = [
        ({"columns": []}, r"params\.columns: Columns: must not be empty"),
        ({"columns": ["a", "a"]}, "listed more than once"),
    ]


def test_pivot_gives_a_column_per_declared_value_and_a_row_per_index_sorted_nulls_last():
    out = run(Pivot(), {**BY_MONTH, "names": "m{value}"})
    assert list(out.columns) == ["shop", "m1", "m2", "m4"]
    assert out["shop"].tolist()[:2] == ["a", "b"] and pd.isna(out["shop"].iloc[2])
    assert out[["m1", "m2", "m4"]].values.tolist() == [[0, 2, 0], [1, 0, 0], [0, 4, 0]]
    assert [str(dtype) for dtype in out.dtypes[1:]] == ["Int64"] * 3


def test_pivot_leaves_out_rows_whose_value_is_not_declared_or_null():
    out = run(Pivot(), {**BY_MONTH, "values": [3]})
    assert out["shop"].tolist() == ["a"] and out["3"].tolist() == [5]


@pytest.mark.parametrize(
    ("function", "expected", "dtype"),
    [
        ("count", [1, 2, 1], "Int64"),
        ("mean", [4.0, 2.25, 2.0], "float64"),
        ("first", [4.0, 1.5, 2.0], "float64"),
        ("max", [4.0, 3.0, 2.0], "float64"),
        ("sum", [4.0, 4.5, 2.0], "float64"),
    ],
)
def test_pivot_functions_mean_what_they_mean_in_aggregate(function, expected, dtype):
    params = {"column": "month", "values": [3, 1, 2], "value": "price", "function": function}
    out = run(Pivot(), params)
    assert len(out) == 1 and str(out.dtypes.iloc[0]) == dtype
    row = [None if pd.isna(value) else value for value in out.iloc[0]]
    assert row == expected


def test_pivot_of_an_empty_table_gives_no_rows_or_one_row_without_index():
    assert len(run(Pivot(), BY_MONTH, SALES.iloc[:0])) == 0
    whole = run(Pivot(), {**BY_MONTH, "index": []}, SALES.iloc[:0])
    assert whole.iloc[0].tolist() == [0, 0, 0]


def test_unpivot_gives_each_rows_columns_in_order_keeping_nulls():
    out = run(Unpivot(), {"index": ["shop"], "columns": ["units", "price"]}, SALES.iloc[:2])
    assert out.values.tolist() == [
        ["b", "units", 1.0],
        ["b", "price", 1.5],
        ["a", "units", 2.0],
        ["a", "price", 2.0],
    ]
    assert [str(dtype) for dtype in out.dtypes] == ["str", "str", "float64"]
    with_nulls = run(Unpivot(), {"columns": ["units"], "value": "n"}, SALES)
    assert with_nulls["n"].isna().sum() == 1 and str(with_nulls["n"].dtype) == "Int64"


def test_sales_pivoted_by_month_and_unpivoted_give_the_sums_back():
    wide = run(Pivot(), {**BY_MONTH, "values": [1, 2, 3], "names": "m{value}"})
    long = run(
        Unpivot(), {"index": ["shop"], "columns": ["m1", "m2", "m3"], "value": "units"}, wide
    )
    assert long[long["units"] > 0].values.tolist()[:3] == [
        ["a", "m2", 2],
        ["a", "m3", 5],
        ["b", "m1", 1],
    ]


def problems(operator: str, params: dict, tmp_path) -> list[str]:
    """The problems schema inference reports for one node over SALES, before any run."""
    SALES.to_parquet(tmp_path / "sales.parquet")
    document = load_document(
        {
            "name": "t",
            "nodes": [
                {"id": "read", "operator": "parquet_input", "params": {"path": "sales.parquet"}},
                {"id": "shape", "operator": operator, "params": params},
            ],
            "edges": [{"source": "read", "target": "shape"}],
        }
    )
    return [str(problem) for problem in infer_schemas(document, data_root=tmp_path).problems]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({**BY_MONTH, "column": "price", "values": [1, 1.0]},
         "Values, item 2: 1.0 is the same float as values[0] (1); list each value once"),
        ({**BY_MONTH, "values": [1, "2"]},
         "Values, item 2: \"2\" is not a value of 'month', which is integer"),
        ({**BY_MONTH, "values": [True]}, "Values, item 1: true is not a value of 'month'"),
        ({**BY_MONTH, "column": "shop", "index": [], "values": [1, "1"]},
         "Values, item 2: \"1\" is the same string as values[0] (1); list each value once"),
        ({**BY_MONTH, "column": "shop", "index": ["month"], "values": ["a", "month"]},
         "Values, item 2: its column would be named 'month', as an index column is"),
        ({**BY_MONTH, "names": "total"}, "Values, item 2: its column would be named 'total'"),
        ({**BY_MONTH, "column": "shop", "index": [], "values": ["a", ""]},
         "Values, item 2: its column would have no name; change `names`"),
        ({**BY_MONTH, "value": "shop", "index": [], "function": "sum"},
         "Value: sum needs numbers, but 'shop' is string"),
        ({**BY_MONTH, "column": "shop"}, "Column: 'shop' is an index column"),
        ({**BY_MONTH, "column": "mnth"}, "Column: unknown column 'mnth'; did you mean 'month'?"),
        ({**BY_MONTH, "values": [2**70]},
         "Values, item 1: 1180591620717411303424 is not a valid integer for column 'month'"),
        ({**BY_MONTH, "values": list(range(1001))}, "Values: must have at most 1000 items"),
    ],
)  # fmt: skip
def test_bad_pivot_params_are_problems_naming_the_node_and_field(tmp_path, params, message):
    found = problems("pivot", params, tmp_path)
    assert len(found) == 1 and found[0].startswith("shape: ") and message in found[0], found


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"columns": ["units", "shop"]}, "Columns: 'shop' is string but 'units' is integer"),
        ({"index": ["shop"], "columns": ["shop", "units"]}, "Columns: 'shop' is an index column"),
        ({"index": ["name"], "columns": ["units"]}, "Index: unknown column 'name'"),
        ({"index": ["shop"], "columns": ["units"], "value": "shop"},
         "Value column: 'shop' is an index column"),
        ({"columns": ["units"], "name": "x", "value": "x"}, "Value column: 'x' is the name column"),
    ],
)  # fmt: skip
def test_bad_unpivot_params_are_problems_naming_the_node_and_field(tmp_path, params, message):
    found = problems("unpivot", params, tmp_path)
    assert len(found) == 1 and found[0].startswith("shape: ") and message in found[0], found


def test_pivot_and_unpivot_read_only_the_columns_they_name():
    pivot = Pivot().Params.model_validate(BY_MONTH)
    assert Pivot().input_columns(pivot, {"out": {"m1"}}) == {"in": {"shop", "month", "units"}}
    unpivot = Unpivot().Params.model_validate({"index": ["shop"], "columns": ["units"]})
    assert Unpivot().input_columns(unpivot, {"out": None}) == {"in": {"shop", "units"}}
