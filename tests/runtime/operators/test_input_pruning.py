"""Column pruning reaches every input on pandas: Parquet, JSON, Excel and SQL inputs read (or
convert) only the columns anything downstream reads. A Parquet column whose pages are broken
proves it is never read; the others show it in the columns of what they give back."""

from __future__ import annotations

import datetime
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from runtime.document.spec import load_document
from runtime.execution.executor import execute
from runtime.io.paths import FileArea
from runtime.operators.excel_files import ExcelInput
from runtime.operators.json_files import JsonInput
from runtime.operators.sql.reading import SqlInput
from runtime.plan import build_plan
from runtime.plan.prepare import prepare
from tests.runtime.operators.contract import make_ctx
from tests.runtime.operators.sql_nodes import people, read, write

ROWS = 300_000
"""Enough rows for several data pages and (with DuckDB) row groups per column."""


def broken_column(path: Path, name: str) -> None:
    """Overwrite the pages of column `name` in every row group: reading it fails."""
    metadata = pq.ParquetFile(path).metadata
    index = metadata.schema.names.index(name)
    data = bytearray(path.read_bytes())
    for group in range(metadata.num_row_groups):
        chunk = metadata.row_group(group).column(index)
        start = chunk.dictionary_page_offset or chunk.data_page_offset
        data[start : start + chunk.total_compressed_size] = b"\xff" * chunk.total_compressed_size
    path.write_bytes(bytes(data))


def users_by_duckdb(path: Path) -> None:
    duckdb.sql(
        f"COPY (SELECT range AS id, 'user' || range AS email, ['FR', 'DE', 'ES'][range % 3 + 1] "
        f"AS country, range % 100 AS amount FROM range({ROWS})) TO '{path}' (FORMAT parquet)"
    )


def users_by_pyarrow(path: Path) -> None:
    ids = pa.array(range(ROWS), pa.int64())
    table = pa.table(
        {
            "id": ids,
            "email": pa.array([f"user{i}" for i in range(ROWS)]),
            "country": pa.array(["FR", "DE", "ES"] * (ROWS // 3)),
            "amount": pa.compute.remainder(ids, 100),
        }
    )
    pq.write_table(table, path, row_group_size=100_000)


TOTALS = {
    "format": "pipewright.pipeline",
    "version": 1,
    "name": "totals",
    "config": {"backend": "pandas"},
    "nodes": [
        {"id": "users", "operator": "parquet_input", "params": {"path": "users.parquet"}},
        {
            "id": "totals",
            "operator": "aggregate",
            "params": {
                "group_by": ["country"],
                "aggregations": [{"column": "amount", "function": "sum", "name": "amount"}],
            },
        },
        {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
    ],
    "edges": [
        {"source": "users", "target": "totals"},
        {"source": "totals", "target": "write"},
    ],
}


@pytest.mark.parametrize("write", [users_by_duckdb, users_by_pyarrow], ids=["duckdb", "pyarrow"])
def test_a_parquet_column_nothing_reads_is_never_decoded_on_pandas(tmp_path, write):
    path = tmp_path / "users.parquet"
    write(path)
    broken_column(path, "email")
    with pytest.raises(OSError):
        pq.read_table(path)  # the whole file no longer reads
    area = FileArea.of(tmp_path)
    plan = prepare(build_plan(load_document(TOTALS)), backend="pandas", data_root=area)
    result = execute(plan, data_root=area)
    assert result.ok, result.error
    amounts = pq.read_table(path, columns=["country", "amount"]).to_pandas()
    expected = amounts.groupby("country")["amount"].sum()
    written = pd.read_csv(tmp_path / "out.csv").set_index("country")["amount"]
    assert written.to_dict() == expected.to_dict()


def test_a_previewed_parquet_input_still_reads_every_column(tmp_path):
    path = tmp_path / "users.parquet"
    users_by_pyarrow(path)
    broken_column(path, "email")
    area = FileArea.of(tmp_path)
    plan = prepare(build_plan(load_document(TOTALS)), backend="pandas", data_root=area)
    result = execute(plan, data_root=area, retain=["users"])
    assert not result.ok and "users" in result.error


def test_json_lines_give_only_the_columns_read_a_nested_record_whole(tmp_path):
    (tmp_path / "in.jsonl").write_text(
        '{"id": 1, "tags": [1, 2], "when": "2024-01-31", "address": {"city": "Paris"}}\n'
        '{"id": 2, "tags": [], "when": "2024-02-01", "address": {"city": "Oslo"}}\n'
    )
    operator = JsonInput()
    params = {"path": "in.jsonl", "lines": True}
    ctx = make_ctx(operator, params, tmp_path, columns={"when", "address.city"})
    frame = operator.run(ctx, {})["out"]
    assert frame.columns.tolist() == ["when", "address.city"]
    assert frame["when"].tolist() == [datetime.date(2024, 1, 31), datetime.date(2024, 2, 1)]
    whole = operator.run(make_ctx(operator, params, tmp_path), {})["out"]
    assert whole.columns.tolist() == ["id", "tags", "when", "address.city"]


def test_an_excel_sheet_gives_only_the_columns_read_its_dates_still_dates(tmp_path):
    frame = pd.DataFrame(
        {
            "id": [1, 2],
            "note": ["a", "b"],
            "day": [datetime.date(2024, 1, 31), datetime.date(2024, 2, 1)],
        }
    )
    frame.to_excel(tmp_path / "in.xlsx", index=False)
    operator = ExcelInput()
    ctx = make_ctx(operator, {"path": "in.xlsx"}, tmp_path, columns={"day"})
    read = operator.run(ctx, {})["out"]
    assert read.columns.tolist() == ["day"]
    assert read["day"].tolist() == [datetime.date(2024, 1, 31), datetime.date(2024, 2, 1)]


def test_a_query_gives_only_the_columns_read_in_its_order(db):
    write(db, people())
    query = f"SELECT * FROM {db.table} ORDER BY id DESC"
    frame = read(db, query, columns={"score"})
    assert frame.columns.tolist() == ["score"]
    assert frame["score"].fillna(0).tolist() == [-2.25, 0, 1.5]


def test_an_incremental_query_keeps_its_watermark_column(db):
    write(db, people())
    operator = SqlInput()
    params = {
        "connection": "db",
        "query": f"SELECT * FROM {db.table}",
        "incremental": {"mode": "watermark", "column": "id"},
    }
    ctx = make_ctx(operator, params, db.data_root, connections=db.connections, columns={"name"})
    frame = operator.run(ctx, {})["out"]
    assert frame.columns.tolist() == ["id", "name"] and ctx.metrics["position"] is not None
