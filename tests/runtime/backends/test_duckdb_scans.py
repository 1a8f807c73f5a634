"""DuckDB reads CSV and Parquet files with the types and rows the pandas readers give."""

from __future__ import annotations

import datetime

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from runtime.errors import NotLowerable
from tests.runtime.backends.both import Step, assert_same, run_duckdb, run_pandas

CSV = (
    "id,name,score,born,seen,active,note\n"
    "1,Zoë,1.5,2020-01-02,2020-01-02 03:04:05,true,\n"
    '2,"a, ""quoted"" name",,2021-02-03,2021-02-03 00:00:00,false,NA\n'
    "3,李,-2.25,,2022-03-04 05:06:07,,n/a\n"
    ",,1e3,2023-04-05,,TRUE,x\n"
)


@pytest.fixture
def root(tmp_path):
    area = tmp_path / "area"
    area.mkdir()
    return area


def csv_step(**params):
    return Step("read", "csv_input", {"path": "data/in.csv", **params})


def write(root, name, text):
    path = root / "data" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"columns": ["note", "id"]},
        {"dtypes": {"id": "float", "born": "string"}},
        {"header": False, "skip_rows": 1},
    ],
)
def test_csv_scan_gives_csv_input_types_nulls_and_rows_in_file_order(root, params):
    write(root, "in.csv", CSV)
    assert_same([csv_step(**params)], {}, root, ordered=["read"])


def test_csv_scan_types_come_from_the_first_block_like_pyarrow(root):
    write(root, "in.csv", "a;b\n" + "".join(f"{i};{i * 0.5}\n" for i in range(200_000)))
    steps = [
        csv_step(delimiter=";"),
        Step("f", "filter", {"condition": "a % 7 = 0"}, {"in": "read"}),
        Step("s", "sort", {"by": [{"column": "b", "descending": True}]}, {"in": "f"}),
        Step("l", "limit", {"n": 50}, {"in": "s"}),
    ]
    actual = assert_same(steps, {}, root, exits=["l", "f"], ordered=["l", "f"])
    assert str(actual["f"].dtypes["a"]) == "Int64"


def test_a_csv_column_of_no_values_stays_on_pandas(root):
    write(root, "in.csv", "a,b\n1,\n2,\n")
    steps = [csv_step()]
    _, schemas = run_pandas(steps, {}, root)
    with pytest.raises(NotLowerable, match="'b'"):
        run_duckdb(steps, {}, schemas, root, ["read"])


def test_a_csv_file_in_another_encoding_stays_on_pandas(root):
    from runtime.operators.registry import default_registry

    operator = default_registry().get("csv_input")
    params = operator.Params.model_validate({"path": "in.csv", "encoding": "latin-1"})
    with pytest.raises(NotLowerable, match="latin-1"):
        operator.lower(params, {}, {})


def test_parquet_scan_gives_parquet_input_types(root):
    (root / "data").mkdir()
    table = pa.table(
        {
            "i8": pa.array([1, None, 3], pa.int8()),
            "i64": pa.array([1, 2, None], pa.int64()),
            "f32": pa.array([1.5, None, 2.25], pa.float32()),
            "s": pa.array(["ä", None, "b"]),
            "d": pa.array([datetime.date(2020, 1, 1), None, datetime.date(2021, 1, 1)]),
            "ts_ms": pa.array([1, 2, None], pa.timestamp("ms")),
            "ts_us": pa.array([1, 2, None], pa.timestamp("us")),
            "b": pa.array([True, None, False]),
        }
    )
    pq.write_table(table, root / "data" / "in.parquet")
    steps = [Step("read", "parquet_input", {"path": "data/in.parquet"})]
    assert_same(steps, {}, root, ordered=["read"])
    steps = [Step("read", "parquet_input", {"path": "data/in.parquet", "columns": ["s", "i8"]})]
    assert_same(steps, {}, root, ordered=["read"])


def test_parquet_written_by_pandas_round_trips_through_both(root):
    (root / "data").mkdir()
    frame = pd.DataFrame(
        {"k": pd.array([2, 1, 2, None], dtype="Int64"), "v": [0.5, 1.5, None, 2.0]}
    )
    frame.to_parquet(root / "data" / "in.parquet")
    steps = [
        Step("read", "parquet_input", {"path": "data/in.parquet"}),
        Step(
            "a",
            "aggregate",
            {"group_by": ["k"], "aggregations": [{"column": "v", "function": "mean"}]},
            {"in": "read"},
        ),
    ]
    assert_same(steps, {}, root, ordered=["a"])


def test_nan_in_a_parquet_file_is_null_to_filters_and_computed_columns_on_both(root):
    """DuckDB judges `NULLIF(column, NaN)` over a Parquet scan from the file's statistics."""
    (root / "data").mkdir()
    table = pa.table({"id": [1, 2, 3, 4], "amount": [10.0, float("nan"), None, 1.0]})
    pq.write_table(table, root / "data" / "in.parquet")
    read = Step("read", "parquet_input", {"path": "data/in.parquet"})
    steps = [
        read,
        Step("big", "filter", {"condition": "amount > 5"}, {"in": "read"}),
        Step("missing", "filter", {"condition": "amount is null"}, {"in": "read"}),
        Step(
            "doubled",
            "transform",
            {"mappings": [{"target": "twice", "expression": "amount * 2"}]},
            {"in": "read"},
        ),
    ]
    outputs = assert_same(steps, {}, root, exits=["big", "missing", "doubled"])
    assert outputs["big"]["id"].tolist() == [1]
    assert sorted(outputs["missing"]["id"].tolist()) == [2, 3]
