"""`window`: functions over each row's partition and frame, rows kept in input order; the
problems a bad call gets, at its field, before anything runs."""

from __future__ import annotations

import datetime
from decimal import Decimal

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from runtime.checks.inference import infer_schemas
from runtime.document.spec import load_document
from runtime.errors import OperatorError, ParamsError
from runtime.operators.window import Window
from runtime.tables.schema import date_dtype, schema_of
from tests.runtime.operators.contract import OperatorContract, assert_schema_predicts, make_ctx

SALES = pd.DataFrame(
    {
        "shop": pd.array(["b", "a", "b", None, "a", "a"], dtype="str"),
        "day": pd.Series(
            [datetime.date(2024, 1, d) for d in (2, 1, 1, 3, 2, 2)], dtype=date_dtype()
        ),
        "units": pd.array([1, 2, None, 4, 5, 6], dtype="Int64"),
        "price": [1.5, 2.0, 3.0, np.nan, 4.0, 0.5],
    }
)
BY_DAY = {"partition_by": ["shop"], "order_by": [{"column": "day"}]}
EVERY_FUNCTION = [
    *({"function": f} for f in ("row_number", "rank", "dense_rank", "percent_rank", "count")),
    {"function": "lag", "column": "units", "default": 0},
    {"function": "lead", "column": "shop", "offset": 2},
    *(
        {"function": f, "column": c}
        for f in ("first", "last", "min", "max", "count")
        for c in ("shop", "day", "units", "price")
    ),
    *({"function": f, "column": c} for f in ("sum", "mean") for c in ("units", "price")),
    {"function": "sum", "column": "price", "name": "moving", "frame": {"preceding": 1}},
]


def window(params: dict, frame: pd.DataFrame = SALES) -> pd.DataFrame:
    """The output, after checking that `output_schema` predicted it."""
    operator = Window()
    predicted = operator.output_schema(make_ctx(operator, params, "."), {"in": schema_of(frame)})
    out = operator.run(make_ctx(operator, params, "."), {"in": frame})["out"]
    assert_schema_predicts(predicted["out"], out)
    return out


def column(params: dict, name: str, frame: pd.DataFrame = SALES) -> list:
    return [None if pd.isna(v) else v for v in window(params, frame)[name]]


class TestWindowContract(OperatorContract):
    operator_cls = Window
    params = {**BY_DAY, "functions": EVERY_FUNCTION}
    inputs = {"in": SALES}
    bad_params = [
        ({}, r"params\.functions: Functions: required"),
        (
            {"functions": [{"function": "median", "column": "x"}]},
            r"params\.functions\.0\.function: .*must be one of",
        ),
        (
            {"functions": [{"function": "lag"}]},
            r"params\.functions\.0\.column: .*lag needs a column",
        ),
        (
            {"functions": [{"function": "rank", "frame": {"preceding": 2}}]},
            r"params\.functions\.0\.frame: .*rank takes no frame",
        ),
        (
            {"functions": [{"function": "lag", "column": "x", "offset": -1}]},
            r"params\.functions\.0\.offset: .*must be at least 0",
        ),
        (
            {"functions": [{"function": "sum", "column": "x", "offset": 2}]},
            r"params\.functions\.0\.offset: .*only lag and lead take offset",
        ),
        (
            {"functions": [{"function": "sum", "column": "x", "frame": {"following": -1}}]},
            r"params\.functions\.0\.frame\.following: .*must be at least 0",
        ),
    ]


def test_a_running_total_includes_the_rows_tied_with_the_current_one():
    params = {**BY_DAY, "functions": [{"function": "sum", "column": "units", "name": "total"}]}
    # shop a: day 1 → 2; day 2 (two rows) → 2 + 5 + 6 for both; shop b: null counts as 0
    assert column(params, "total") == [1, 2, 0, 4, 13, 13]


def test_rank_ties_share_a_rank_and_row_number_breaks_them_in_input_order():
    functions = [{"function": f} for f in ("row_number", "rank", "dense_rank", "percent_rank")]
    out = window({**BY_DAY, "functions": functions})
    assert out["row_number"].tolist() == [2, 1, 1, 1, 2, 3]
    assert out["rank"].tolist() == [2, 1, 1, 1, 2, 2]
    assert out["dense_rank"].tolist() == [2, 1, 1, 1, 2, 2]
    assert out["percent_rank"].tolist() == [1.0, 0.0, 0.0, 0.0, 0.5, 0.5]


def test_lag_and_lead_stay_within_the_partition_and_give_the_default_past_its_edge():
    functions = [
        {"function": "lag", "column": "units", "name": "before", "default": -1},
        {"function": "lead", "column": "units", "name": "after"},
    ]
    out = window({**BY_DAY, "functions": functions})
    assert [None if pd.isna(v) else v for v in out["before"]] == [None, -1, -1, -1, 2, 5]
    assert [None if pd.isna(v) else v for v in out["after"]] == [None, 5, 1, None, 6, None]
    assert out["before"].dtype == "Int64"


def test_a_seven_row_moving_average_is_over_the_rows_present():
    frame = pd.DataFrame({"v": [float(i) for i in range(10)]})
    params = {
        "order_by": [{"column": "v"}],
        "functions": [{"function": "mean", "column": "v", "frame": {"preceding": 6}}],
    }
    expected = [np.mean(range(max(0, i - 6), i + 1)) for i in range(10)]
    assert column(params, "v_mean", frame) == pytest.approx(expected)


def test_without_an_order_the_frame_is_the_whole_partition():
    params = {"partition_by": ["shop"], "functions": [{"function": "max", "column": "units"}]}
    assert column(params, "units_max") == [1, 6, 1, 4, 6, 6]


def test_first_and_last_skip_nulls_and_keep_the_column_type():
    params = {
        "order_by": [{"column": "price", "descending": True}],
        "functions": [
            {"function": "first", "column": "units", "frame": {"preceding": 0, "following": None}},
            {"function": "last", "column": "day", "frame": {"preceding": 0, "following": 1}},
        ],
    }
    out = window(params)
    # price order: 4.0 (u5), 3.0 (u null), 2.0 (u2), 1.5 (u1), 0.5 (u6), null (u4)
    assert out["units_first"].tolist() == [1, 2, 2, 4, 5, 6]
    assert out["day_last"].dtype == date_dtype()


def test_nulls_in_order_keys_go_last_or_first_as_a_sort_puts_them():
    frame = pd.DataFrame({"k": pd.array([2, None, 1], dtype="Int64")})
    last = {"order_by": [{"column": "k", "descending": True}], "functions": [{"function": "rank"}]}
    assert column(last, "rank", frame) == [1, 3, 2]
    assert column({**last, "nulls_last": False}, "rank", frame) == [2, 1, 3]


def test_sums_of_decimals_are_exact_at_38_digits():
    values = pd.array(
        [Decimal("0.10"), Decimal("0.20"), None], dtype=pd.ArrowDtype(pa.decimal128(12, 2))
    )
    frame = pd.DataFrame({"d": values})
    out = window({"functions": [{"function": "sum", "column": "d", "frame": {}}]}, frame)
    assert out["d_sum"].tolist() == [Decimal("0.10"), Decimal("0.30"), Decimal("0.30")]
    assert out["d_sum"].dtype == pd.ArrowDtype(pa.decimal128(38, 2))


def test_an_empty_table_gives_the_columns_and_no_rows():
    out = window({**BY_DAY, "functions": EVERY_FUNCTION}, SALES.head(0))
    assert len(out) == 0 and len(out.columns) == len(SALES.columns) + len(EVERY_FUNCTION)


def test_rows_keep_their_input_order_and_index():
    frame = SALES.set_axis([10, 11, 12, 13, 14, 15])
    out = window({**BY_DAY, "functions": [{"function": "row_number"}]}, frame)
    assert out.index.tolist() == [10, 11, 12, 13, 14, 15]
    pd.testing.assert_frame_equal(out[list(SALES.columns)], frame)


@pytest.mark.parametrize(
    "functions, message",
    [
        ([{"function": "sum", "column": "shop"}], r"functions\[0\]\.column: sum needs numbers"),
        ([{"function": "max", "column": "shp"}], r"functions\[0\]\.column: unknown column 'shp'"),
        (
            [{"function": "lag", "column": "units", "default": "many"}],
            r"functions\[0\]\.default: \"many\" is not a valid integer",
        ),
        (
            [{"function": "rank"}, {"function": "count", "name": "units"}],
            r"functions\[1\]\.name: the output already has a column named 'units'",
        ),
        (
            [{"function": "lag", "column": "units", "default": 2**70}],
            r"functions\[0\]\.default: 1180591620717411303424 is not a valid integer",
        ),
    ],
)
def test_a_bad_call_is_refused_at_its_field(functions, message):
    with pytest.raises(ParamsError, match=message):
        window({"functions": functions})


def test_an_unknown_partition_or_order_column_is_refused_with_a_suggestion():
    with pytest.raises(ParamsError, match=r"partition_by\[0\]: unknown column 'shp'"):
        window({"partition_by": ["shp"], "functions": [{"function": "rank"}]})
    with pytest.raises(ParamsError, match=r"order_by\[0\]\.column: unknown column 'dy'"):
        window({"order_by": [{"column": "dy"}], "functions": [{"function": "rank"}]})


def test_only_the_columns_read_and_the_wanted_outputs_are_needed():
    operator = Window()
    params = operator.Params.model_validate(
        {**BY_DAY, "functions": [{"function": "sum", "column": "units", "name": "t"}]}
    )
    assert operator.input_columns(params, {"out": {"t", "price"}}) == {
        "in": {"shop", "day", "units", "price"}
    }
    assert operator.pruned(params, {"price"}).functions == []


def test_a_default_of_the_wrong_type_is_a_problem_of_the_node_before_anything_runs(tmp_path):
    (tmp_path / "in.csv").write_text("g,k\na,1\n")
    document = load_document(
        {
            "name": "checked",
            "nodes": [
                {"id": "read", "operator": "csv_input", "params": {"path": "in.csv"}},
                {"id": "w", "operator": "window", "params": {
                    "functions": [{"function": "lag", "column": "k", "default": "many"}]}},
            ],
            "edges": [{"source": "read", "target": "w"}],
        }
    )  # fmt: skip
    [problem] = infer_schemas(document, data_root=tmp_path).nodes["w"].problems
    assert (problem.node, problem.field) == ("w", "params.functions[0].default")
    assert "\"many\" is not a valid integer for column 'k'" in problem.message


@pytest.mark.parametrize(
    "call",
    [
        {"function": "sum", "column": "units", "frame": {"preceding": 10**19}},
        {"function": "sum", "column": "units", "frame": {"following": 2**63 - 1}},
        {"function": "lag", "column": "units", "offset": 10**19},
    ],
)
def test_frames_and_offsets_beyond_a_billion_rows_are_refused_before_running(call):
    with pytest.raises(ValueError, match="less than or equal to 1000000000"):
        Window.Params.model_validate({"functions": [call]})


def test_a_sum_beyond_64_bits_fails_and_a_mean_of_huge_integers_is_right():
    huge = pd.DataFrame({"k": [1, 2, 3], "v": pd.array([2**62, 2**62, 5], dtype="Int64")})
    ordered = {"order_by": [{"column": "k"}]}
    with pytest.raises(OperatorError, match="leaves the range of 64-bit integers"):
        window({**ordered, "functions": [{"function": "sum", "column": "v"}]}, huge)
    means = column({**ordered, "functions": [{"function": "mean", "column": "v"}]}, "v_mean", huge)
    assert means == pytest.approx([2.0**62, 2.0**62, (2**63 + 5) / 3], rel=1e-12)
    wrapped = {"function": "sum", "column": "v", "frame": {"preceding": 0}}  # each row alone
    assert column({**ordered, "functions": [wrapped]}, "v_sum", huge) == [2**62, 2**62, 5]
