"""`broadcast`: a value of at most one row beside every row, nulls for no row, an error for
several, a name clash a problem before running."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pandas as pd
import pyarrow as pa
import pytest

from runtime.checks.inference import infer_schemas
from runtime.document.spec import load_document
from runtime.errors import OperatorError, ParamsError
from runtime.operators.broadcast import Broadcast, BroadcastParams
from runtime.tables.schema import date_dtype, schema_of
from tests.runtime.operators.contract import OperatorContract, assert_schema_predicts, make_ctx

ROWS = pd.DataFrame({"id": pd.array([1, 2, 3], dtype="Int64"), "amount": [5.0, 50.0, None]})
TOTAL = pd.DataFrame(
    {
        "total": [55.0],
        "rows": pd.array([3], dtype="Int64"),
        "day": pd.Series([datetime.date(2024, 1, 2)], dtype=date_dtype()),
        "exact": pd.Series([Decimal("1.25")], dtype=pd.ArrowDtype(pa.decimal128(38, 2))),
        "label": pd.array(["all"], dtype="str"),
    }
)


def broadcast(params: dict, value: pd.DataFrame, rows: pd.DataFrame = ROWS) -> pd.DataFrame:
    """The output, after checking that `output_schema` predicted it."""
    operator = Broadcast()
    inputs = {"in": rows, "value": value}
    schemas = {"in": schema_of(rows), "value": schema_of(value)}
    predicted = operator.output_schema(make_ctx(operator, params, "."), schemas)["out"]
    out = operator.run(make_ctx(operator, params, "."), inputs)["out"]
    assert_schema_predicts(predicted, out)
    return out


class TestBroadcastContract(OperatorContract):
    operator_cls = Broadcast
    params = {"columns": ["total"]}
    inputs = {"in": ROWS, "value": TOTAL}
    bad_params = [({"columns": ["a", "a"]}, "listed more than once")]


def test_every_row_gets_the_values_of_the_one_row_in_their_types():
    out = broadcast({}, TOTAL)
    assert list(out.columns) == ["id", "amount", "total", "rows", "day", "exact", "label"]
    assert out["total"].tolist() == [55.0] * 3 and out["label"].tolist() == ["all"] * 3
    assert out.dtypes.astype(str).tolist()[2:] == [str(d) for d in TOTAL.dtypes]
    assert out["id"].tolist() == [1, 2, 3]


def test_a_value_of_no_row_gives_nulls():
    out = broadcast({"columns": ["rows", "label"]}, TOTAL.iloc[:0])
    assert list(out.columns) == ["id", "amount", "rows", "label"]
    assert out["rows"].isna().all() and out["label"].isna().all()
    assert str(out["rows"].dtype) == "Int64"


def test_no_rows_in_gives_no_rows():
    assert broadcast({}, TOTAL, ROWS.iloc[:0]).empty


def test_a_value_of_several_rows_is_an_error_saying_how_many():
    operator = Broadcast()
    inputs = {"in": ROWS, "value": pd.concat([TOTAL] * 3, ignore_index=True)}
    with pytest.raises(OperatorError, match="value gives 3 rows; broadcast needs at most one"):
        operator.run(make_ctx(operator, {}, "."), inputs)


def test_a_name_clash_is_refused_naming_the_column():
    with pytest.raises(ParamsError, match="columns: both inputs have a column named 'amount'"):
        broadcast({"columns": ["amount"]}, TOTAL.assign(amount=1.0))


def test_a_name_clash_is_a_problem_at_the_node_before_running(tmp_path):
    ROWS.to_parquet(tmp_path / "rows.parquet", index=False)
    document = load_document(
        {
            "name": "t",
            "nodes": [
                {"id": "read", "operator": "parquet_input", "params": {"path": "rows.parquet"}},
                {"id": "top", "operator": "aggregate", "params": {
                    "aggregations": [{"column": "amount", "function": "max", "name": "amount"}]}},
                {"id": "beside", "operator": "broadcast", "params": {}},
            ],
            "edges": [
                {"source": "read", "target": "top"},
                {"source": "read", "target": "beside", "target_port": "in"},
                {"source": "top", "target": "beside", "target_port": "value"},
            ],
        }
    )  # fmt: skip
    [problem] = infer_schemas(document, data_root=tmp_path).problems
    assert (problem.node, problem.field) == ("beside", "params.columns")
    assert "both inputs have a column named 'amount'" in problem.message


def test_the_value_branch_reads_only_the_chosen_columns():
    params = BroadcastParams(columns=["total"])
    assert Broadcast().input_columns(params, {"out": {"id", "total"}}) == {
        "in": {"id", "total"},
        "value": {"total"},
    }
