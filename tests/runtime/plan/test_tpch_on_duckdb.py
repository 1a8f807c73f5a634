"""A TPC-H lineitem file as `tpchgen-cli` writes it (DECIMAL(15,2) money, string_view text) runs
on DuckDB without falling back to pandas, and gives DuckDB SQL's exact answer and pandas'."""

from __future__ import annotations

import decimal
import shutil
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from runtime.document.spec import load_document
from runtime.execution.events import ListSink
from runtime.execution.executor import execute
from runtime.io.paths import FileArea
from runtime.plan import build_plan
from runtime.plan.explain import explain
from runtime.plan.prepare import prepare

PIPELINE = {
    "name": "revenue by return flag",
    "nodes": [
        {"id": "lineitem", "operator": "parquet_input", "params": {"path": "lineitem.parquet"}},
        {
            "id": "discounted",
            "operator": "filter",
            "params": {"condition": "l_discount between 0.05 and 0.07"},
        },
        {
            "id": "revenue",
            "operator": "aggregate",
            "params": {
                "group_by": ["l_returnflag"],
                "aggregations": [
                    {"column": "l_extendedprice", "function": "sum", "name": "revenue"},
                    {"column": "l_discount", "function": "mean", "name": "mean_discount"},
                ],
            },
        },
        {"id": "write", "operator": "parquet_output", "params": {"path": "revenue.parquet"}},
    ],
    "edges": [
        {"source": "lineitem", "target": "discounted"},
        {"source": "discounted", "target": "revenue"},
        {"source": "revenue", "target": "write"},
    ],
}
ANSWER = """
    SELECT l_returnflag, SUM(l_extendedprice) AS revenue, AVG(l_discount) AS mean_discount
    FROM read_parquet(?) WHERE l_discount BETWEEN 0.05 AND 0.07
    GROUP BY l_returnflag ORDER BY l_returnflag
"""


@pytest.fixture
def lineitem(tpch_files) -> Path:
    """lineitem.parquet at scale factor 0.01 (60,175 rows), written by tpchgen-cli."""
    return tpch_files / "parquet" / "lineitem.parquet"


def run(lineitem: Path, folder: Path, backend: str):
    folder.mkdir()
    shutil.copy(lineitem, folder / "lineitem.parquet")
    area = FileArea.of(folder)
    plan = prepare(build_plan(load_document(PIPELINE)), backend=backend, data_root=area)
    sink = ListSink()
    result = execute(plan, sinks=[sink], data_root=area)
    assert result.ok
    return plan, sink, pq.read_table(folder / "revenue.parquet")


def test_the_file_tpchgen_writes_has_decimal_money_and_string_view_text(lineitem):
    schema = pq.read_schema(lineitem)
    assert str(schema.field("l_extendedprice").type) == "decimal128(15, 2)"
    assert str(schema.field("l_returnflag").type) == "string_view"


def test_revenue_by_return_flag_runs_on_duckdb_and_equals_duckdb_sql_and_pandas(lineitem, tmp_path):
    plan, sink, on_duckdb = run(lineitem, tmp_path / "duckdb", "duckdb")
    assert [segment.nodes for segment in plan.segments] == [
        ("lineitem", "discounted", "revenue", "write")
    ]
    assert "duckdb" in explain(plan)
    logged = [event["message"] for event in sink.of_type("node_log")]
    assert "wrote 3 rows to revenue.parquet" in logged
    assert not [message for message in logged if "runs on pandas instead" in message]

    expected = duckdb.execute(ANSWER, [str(lineitem)]).fetchall()
    rows = list(zip(*on_duckdb.to_pydict().values(), strict=True))
    assert [row[:2] for row in rows] == [row[:2] for row in expected]
    assert all(isinstance(row[1], decimal.Decimal) for row in rows)
    assert str(on_duckdb.schema.field("revenue").type) == "decimal128(38, 2)"
    for (*_, mean), (*_, wanted) in zip(rows, expected, strict=True):
        assert mean == pytest.approx(wanted, rel=1e-12)

    _, _, on_pandas = run(lineitem, tmp_path / "pandas", "pandas")
    # the same values and types, but text: DuckDB's COPY writes no Arrow schema saying
    # large_string, so pyarrow reads string (runtime/backends/duckdb/sinks.py `parquet_copy`)
    assert on_pandas.select(["l_returnflag", "revenue"]).to_pylist() == (
        on_duckdb.select(["l_returnflag", "revenue"]).to_pylist()
    )
    assert on_pandas.schema.field("revenue") == on_duckdb.schema.field("revenue")
    assert on_pandas.column("mean_discount").to_pylist() == pytest.approx(
        on_duckdb.column("mean_discount").to_pylist(), rel=1e-12
    )
