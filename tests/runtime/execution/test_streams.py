"""Inputs that only DuckDB reads hand their rows on in a spill file, batch by batch: the same
outputs as pandas builds, more than one batch written, and no file left once the run ends."""

from __future__ import annotations

import itertools
import json
import sqlite3

import pandas as pd
import pytest
import sqlalchemy as sa

from runtime.document.spec import load_document
from runtime.execution.executor import execute
from runtime.execution.streams import FOLDER
from runtime.io.paths import FileArea
from runtime.operators import json_files
from runtime.operators.context import NodeContext
from runtime.operators.sql import reading
from runtime.plan import build_plan
from runtime.plan.prepare import prepare
from runtime.tables import spilled
from runtime.tables.frames import to_pandas

ROWS = 3000


def pipeline(reader: dict, *middle: dict) -> dict:
    """`reader`, then `middle` nodes in a chain, written to out.csv."""
    nodes = [
        reader,
        *middle,
        {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
    ]
    edges = [
        {"source": above["id"], "target": below["id"]} for above, below in itertools.pairwise(nodes)
    ]
    return {"format": "pipewright.pipeline", "version": 1, "name": "streams", "nodes": nodes,
            "edges": edges}  # fmt: skip


KEEP_SOME = {"id": "some", "operator": "filter", "params": {"condition": "amount > 10"}}
BY_CITY = {
    "id": "by_city",
    "operator": "aggregate",
    "params": {
        "group_by": ["city"],
        "aggregations": [{"column": "amount", "function": "sum", "name": "total"}],
    },
}


def run(document: dict, folder, backend: str, connections=None):
    area = FileArea.of(folder)
    plan = build_plan(load_document(document))
    plan = prepare(plan, backend=backend, data_root=area, connections=connections)
    result = execute(plan, data_root=area, connections=connections)
    assert result.ok, result.error
    return result, (folder / "out.csv").read_bytes()


def on_both(document: dict, folder, connections=None):
    """The run on DuckDB, after checking it writes what pandas writes."""
    _, expected = run(document, folder, "pandas", connections)
    result, written = run(document, folder, "duckdb", connections)
    assert written == expected
    assert not (folder / ".pipewright" / "tmp" / str(result.run_id) / FOLDER).exists()
    return result


@pytest.fixture(autouse=True)
def spill_any_size(monkeypatch):
    """Inputs of any size spill: these tests' inputs are far below `SPILL_FROM_BYTES`."""
    monkeypatch.setattr(spilled, "SPILL_FROM_BYTES", 0)


@pytest.fixture
def events(tmp_path, monkeypatch):
    """A JSON Lines file of a few blocks: dates, a text column that looks like dates until a
    later block, nulls."""
    monkeypatch.setattr(json_files, "BLOCK_BYTES", 16 * 1024)
    with (tmp_path / "events.jsonl").open("w") as handle:
        for index in range(ROWS):
            row = {
                "id": index,
                "city": ["Lyon", "Nice", None][index % 3],
                "amount": index % 50 + 0.5,
                "day": f"2024-02-{index % 28 + 1:02d}",
                "when": "soon" if index == ROWS - 1 else f"2024-03-01T10:{index % 60:02d}:00",
            }
            handle.write(json.dumps(row) + "\n")
    return tmp_path


def test_a_json_lines_input_below_which_only_duckdb_runs_spills_in_batches(events):
    reader = {
        "id": "read",
        "operator": "json_input",
        "params": {"path": "events.jsonl", "lines": True},
    }
    result = on_both(pipeline(reader, KEEP_SOME), events)
    assert result.nodes["read"].extra["spilled_batches"] > 1
    assert result.nodes["read"].rows_out == ROWS
    written = pd.read_csv(events / "out.csv")
    assert written["when"].iloc[-1] == "soon"


def test_a_json_lines_input_whose_column_changes_kind_further_down_is_read_whole(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(json_files, "BLOCK_BYTES", 1024)
    rows = [{"city": "Lyon", "amount": 1.5, "code": None}] * 200 + [
        {"city": "Nice", "amount": 2.5, "code": "x"}
    ]
    (tmp_path / "events.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    reader = {
        "id": "read",
        "operator": "json_input",
        "params": {"path": "events.jsonl", "lines": True},
    }
    result = on_both(pipeline(reader, KEEP_SOME), tmp_path)
    assert "spilled_batches" not in result.nodes["read"].extra


def checked_pipeline(*rules: dict) -> dict:
    """JSON Lines → validate: valid rows filtered to out.csv, invalid ones to bad.csv."""
    reader = {
        "id": "read",
        "operator": "json_input",
        "params": {"path": "events.jsonl", "lines": True},
    }
    checked = {"id": "checked", "operator": "validate", "params": {"rules": list(rules)}}
    document = pipeline(reader, checked, KEEP_SOME)
    document["edges"][1]["source_port"] = "valid"
    document["nodes"].append(
        {"id": "write_bad", "operator": "csv_output", "params": {"path": "bad.csv"}}
    )
    document["edges"].append({"source": "checked", "source_port": "invalid", "target": "write_bad"})
    return document


def test_validate_of_row_local_rules_checks_a_spilled_input_batch_by_batch(events):
    rules = [
        {"rule": "not_null", "column": "city"},
        {"rule": "range", "column": "amount", "min": 2, "max": 40},
    ]
    _, _ = run(checked_pipeline(*rules), events, "pandas")
    invalid = (events / "bad.csv").read_bytes()
    result = on_both(checked_pipeline(*rules), events)
    assert (events / "bad.csv").read_bytes() == invalid
    assert "_reason" in invalid.decode().splitlines()[0]
    assert result.nodes["read"].extra["spilled_batches"] > 1
    assert result.nodes["checked"].extra["spilled_batches"] > 1


def test_validate_checks_unique_values_over_every_spilled_row_not_batch_by_batch(
    events, monkeypatch
):
    """Rows 7 and 2990 share a code, batches apart: both are invalid, as in a whole read."""
    with (events / "events.jsonl").open("a") as handle:  # codes unique but for one pair
        for index in range(ROWS, ROWS + 10):
            handle.write(json.dumps({"id": index, "city": "Lyon", "amount": 11.5}) + "\n")
    lines = (events / "events.jsonl").read_text().splitlines()
    rows = [{**json.loads(line), "code": f"c{index}"} for index, line in enumerate(lines)]
    rows[2990]["code"] = "c7"
    (events / "events.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    document = checked_pipeline({"rule": "unique", "column": "code"})
    monkeypatch.setattr(spilled, "SPILL_FROM_BYTES", 2**40)
    run(document, events, "pandas")
    whole = {name: (events / name).read_bytes() for name in ("out.csv", "bad.csv")}
    monkeypatch.setattr(spilled, "SPILL_FROM_BYTES", 0)
    result = on_both(document, events)
    assert {name: (events / name).read_bytes() for name in whole} == whole
    assert result.nodes["read"].extra["spilled_batches"] > 1
    assert result.nodes["checked"].extra["spilled_batches"] > 1
    bad = pd.read_csv(events / "bad.csv")
    assert bad["id"].tolist() == [7, 2990]
    assert bad["_reason"].tolist() == ["code: c7 appears more than once"] * 2


def shop(folder) -> None:
    """A SQLite database of ROWS sales in `folder`, the connection `shop`'s."""
    with sqlite3.connect(folder / "shop.db") as database:
        database.execute("CREATE TABLE sales (id INTEGER, city TEXT, amount REAL)")
        database.executemany(
            "INSERT INTO sales VALUES (?, ?, ?)",
            [(index, ["Lyon", "Nice", None][index % 3], index % 50 + 0.5) for index in range(ROWS)],
        )


def test_inputs_smaller_than_the_spill_threshold_hand_on_a_frame(events, monkeypatch):
    """Spilling costs CPU (a pandas and Parquet round trip per batch): only large inputs pay."""
    monkeypatch.setattr(spilled, "SPILL_FROM_BYTES", 10 * 2**20)
    monkeypatch.setattr(reading, "READ_CHUNK_ROWS", 500)
    shop(events)
    readers = [
        {"id": "read", "operator": "json_input", "params": {"path": "events.jsonl", "lines": True}},
        {"id": "read", "operator": "sql_input",
         "params": {"connection": "shop", "query": "SELECT * FROM sales"}},
    ]  # fmt: skip
    for reader in readers:
        result = on_both(pipeline(reader, KEEP_SOME), events, {"shop": "sqlite:///shop.db"})
        assert "spilled_batches" not in result.nodes["read"].extra
        assert result.nodes["read"].rows_out == ROWS


def test_a_sql_input_below_which_only_duckdb_runs_spills_its_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(reading, "READ_CHUNK_ROWS", 500)
    shop(tmp_path)
    # `late` has no declared type and no value before the third chunk: typed by its values
    query = "SELECT *, CASE WHEN id > 1200 THEN id * 2 END AS late FROM sales"
    reader = {
        "id": "read",
        "operator": "sql_input",
        "params": {"connection": "shop", "query": query},
    }
    connections = {"shop": "sqlite:///shop.db"}
    result = on_both(pipeline(reader, KEEP_SOME), tmp_path, connections)
    assert result.nodes["read"].extra["spilled_batches"] == ROWS // 500
    on_both(pipeline(reader, BY_CITY), tmp_path, connections)


def test_spilled_json_lines_read_back_as_the_frame_a_whole_read_gives(events, tmp_path):
    params = json_files.JsonInputParams(path="events.jsonl", lines=True)
    ctx = NodeContext("read", params, data_root=events)
    path = events / "events.jsonl"
    spilled = json_files.spill_json_lines(ctx, path, None, tmp_path / "spill" / "read.parquet")
    whole = to_pandas(json_files.read_json_file(ctx, path, "events.jsonl", True, None))
    assert spilled.batches > 1
    pd.testing.assert_frame_equal(spilled.frame(), whole)
    assert str(whole["day"].dtype) == "date32[day][pyarrow]"


def test_a_postgresql_query_spills_its_chunks_alike(postgresql_url, tmp_path, monkeypatch):
    monkeypatch.setattr(reading, "READ_CHUNK_ROWS", 500)
    url, _ = postgresql_url
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "CREATE TABLE streamed_sales AS SELECT i AS id,"
                " (ARRAY['Lyon', 'Nice', NULL])[1 + i % 3] AS city,"
                " (i % 50 + 0.5)::float8 AS amount, DATE '2024-01-01' + i % 28 AS day"
                f" FROM generate_series(0, {ROWS - 1}) AS i"
            )
        )
    engine.dispose()
    query = "SELECT * FROM streamed_sales ORDER BY id"
    reader = {"id": "read", "operator": "sql_input", "params": {"connection": "pg", "query": query}}
    connections = {"pg": url.render_as_string(hide_password=False)}
    result = on_both(pipeline(reader, KEEP_SOME), tmp_path, connections)
    assert result.nodes["read"].extra["spilled_batches"] == ROWS // 500
