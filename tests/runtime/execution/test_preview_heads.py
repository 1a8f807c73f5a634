"""A preview below a filter reads its input batch by batch until the filter has the rows shown,
and shows the rows a run over the whole file gives."""

from __future__ import annotations

from itertools import pairwise

import duckdb
import pytest

from runtime.document.spec import load_document
from runtime.execution.executor import execute
from runtime.execution.heads import STREAM_ABOVE_BYTES
from runtime.execution.preview import preview
from runtime.plan import build_plan
from runtime.tables.json_rows import json_rows

ROWS = 600_000


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The same users as a CSV file DuckDB wrote and a Parquet file Polars wrote."""
    folder = tmp_path_factory.mktemp("heads")
    users = (
        "SELECT i AS id, (i * 37) % 100 AS age, ['ada', 'bob', 'cyd'][i % 3 + 1] AS name, "
        "md5(i::VARCHAR) AS token"
    )
    duckdb.sql(f"COPY ({users} FROM range({ROWS}) t(i)) TO '{folder / 'users.csv'}'")
    duckdb.sql(f"{users} FROM range({ROWS}) t(i)").pl().write_parquet(folder / "users.parquet")
    for name in ("users.csv", "users.parquet"):
        assert (folder / name).stat().st_size > STREAM_ABOVE_BYTES
    return folder


def document(path: str, condition: str, *below) -> dict:
    """users → a filter on `condition` → the nodes `below`, each reading the one before."""
    nodes = [
        {"id": "users", "operator": f"{path.rsplit('.')[-1]}_input", "params": {"path": path}},
        {"id": "picked", "operator": "filter", "params": {"condition": condition}},
        *(
            {"id": f"n{i}", "operator": op, "params": params}
            for i, (op, params) in enumerate(below)
        ),
    ]
    ids = [node["id"] for node in nodes]
    edges = [{"source": a, "target": b} for a, b in pairwise(ids)]
    return load_document({"name": "heads", "nodes": nodes, "edges": edges})


LOUD = ("transform", {"mappings": [{"target": "name", "expression": "upper(name)"}]})
PICK = ("select", {"columns": ["id", "name"]})


def whole_run(doc, node_id: str, folder, limit: int) -> list[list]:
    """The first rows of `node_id` in a run over every row of the file."""
    result = execute(build_plan(doc), retain=[node_id], data_root=folder)
    assert result.ok
    return json_rows(result.outputs[(node_id, "out")].head(limit))


@pytest.mark.parametrize("path", ["users.csv", "users.parquet"])
@pytest.mark.parametrize("below", [(), (LOUD, PICK)], ids=["filter", "filter, transform, select"])
def test_a_preview_below_a_filter_reads_only_the_head_it_needs(files, path, below):
    doc = document(path, "age > 18 and name != 'bob'", *below)
    target = f"n{len(below) - 1}" if below else "picked"
    shown = preview(doc, target, 50, data_root=files)
    assert shown.rows == whole_run(doc, target, files, 50)
    assert len(shown.rows) == 50 and shown.total_rows is None
    assert shown.rows_read < ROWS / 4, "one batch of the file's rows"


def test_a_filter_that_keeps_too_few_rows_reads_every_row_and_knows_its_total(files):
    doc = document("users.csv", "id % 100000 = 7")
    shown = preview(doc, "picked", 50, data_root=files)
    assert shown.rows_read == ROWS and shown.total_rows == 6
    assert shown.rows == whole_run(doc, "picked", files, 50)


def test_a_preview_below_an_aggregate_reads_every_row(files):
    by_name = {"group_by": ["name"], "aggregations": [{"column": "id", "function": "count"}]}
    doc = document("users.parquet", "age > 18", ("aggregate", by_name))
    shown = preview(doc, "n0", 50, data_root=files)
    assert shown.rows_read == ROWS and shown.total_rows == 3


def test_filters_in_a_row_read_only_the_head_they_need(files):
    doc = document("users.csv", "age > 18", ("filter", {"condition": "id % 2 = 0"}))
    shown = preview(doc, "n0", 50, data_root=files)
    assert shown.rows == whole_run(doc, "n0", files, 50) and shown.rows_read < ROWS / 4


def test_a_block_that_does_not_read_as_the_first_makes_the_preview_read_the_whole_file(
    tmp_path,
):
    """The ages are numbers but for the last row's: read block by block, the first block says
    integer and the last block fails; read whole, the column is text, as in a run."""
    ages = "CASE WHEN i = 599999 THEN 'old' ELSE ((i * 37) % 100)::VARCHAR END"
    users = f"SELECT i AS id, {ages} AS age, md5(i::VARCHAR) AS token FROM range(600000) t(i)"
    duckdb.sql(f"COPY ({users}) TO '{tmp_path / 'users.csv'}'")
    doc = document("users.csv", "id > 599990")
    shown = preview(doc, "picked", 50, data_root=tmp_path)
    assert shown.rows == whole_run(doc, "picked", tmp_path, 50)
    assert shown.rows[-1][1] == "old" and shown.total_rows == 9


def test_a_batch_the_chain_cannot_take_makes_the_input_read_every_row(tmp_path):
    """A file without a header row: its batches come with the reader's column names, which the
    filter does not know; the probe gives up and the input reads on, as in a run."""
    users = "SELECT i, md5(i::VARCHAR) FROM range(300000) t(i)"
    duckdb.sql(f"COPY ({users}) TO '{tmp_path / 'users.csv'}' (HEADER false)")
    doc = document("users.csv", "column_1 % 1000 = 0")
    doc.nodes[0].params["header"] = False
    shown = preview(doc, "picked", 50, data_root=tmp_path)
    assert shown.rows_read == 300_000 and shown.total_rows == 300
    assert shown.rows == whole_run(doc, "picked", tmp_path, 50)
