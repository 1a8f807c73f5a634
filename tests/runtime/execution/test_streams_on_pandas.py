"""On pandas too, rows spilled by an input go batch by batch through row-wise nodes and
`validate` into the CSV, Parquet and SQL writers: the same files and tables as a run that
builds every frame, no node holding more than a batch, and still all or nothing."""

from __future__ import annotations

import json
import sqlite3

import pandas as pd
import pyarrow as pa
import pytest
import sqlalchemy as sa

from runtime.document.spec import load_document
from runtime.errors import NodeCancelled
from runtime.execution.executor import execute
from runtime.io.paths import FileArea
from runtime.operators import json_files
from runtime.operators.context import NodeContext
from runtime.operators.csv_files import CsvOutput, CsvOutputParams
from runtime.operators.sql import reading
from runtime.plan import build_plan
from runtime.plan.prepare import prepare
from runtime.tables import spilled
from runtime.tables.spilled import SpilledRows, SpillWriter
from tests.runtime.execution.test_streams import BY_CITY, KEEP_SOME, ROWS, pipeline, shop


def streamed_and_whole(document: dict, folder, monkeypatch, written: list[str], links=None):
    """The run of `document` on pandas with every input spilling, after checking that the
    files it writes are byte for byte those of a run that builds every frame."""
    monkeypatch.setattr(spilled, "SPILL_FROM_BYTES", 2**40)
    executed(document, folder, links)
    whole = {name: (folder / name).read_bytes() for name in written}
    monkeypatch.setattr(spilled, "SPILL_FROM_BYTES", 0)
    result = executed(document, folder, links)
    assert {name: (folder / name).read_bytes() for name in written} == whole
    return result


def executed(document: dict, folder, links: dict | None = None, ok: bool = True):
    """The result of running `document` on pandas over the files in `folder`."""
    area = FileArea.of(folder)
    plan = build_plan(load_document(document))
    plan = prepare(plan, backend="pandas", data_root=area, connections=links)
    result = execute(plan, data_root=area, connections=links)
    assert result.ok is ok, result.error
    return result


def write_lines(folder, rows: list[dict]) -> None:
    (folder / "events.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))


@pytest.fixture
def events(tmp_path, monkeypatch):
    """JSON Lines of several batches (blocks of 16 KiB): datetimes at midnight but for
    one with microseconds far down, and a text holding a carriage return there too."""
    monkeypatch.setattr(json_files, "BLOCK_BYTES", 16 * 1024)
    rows = [
        {"id": index, "city": ["Lyon", "Nice", None][index % 3], "amount": index % 50 + 0.5,
         "at": f"2024-03-{index % 28 + 1:02d}T00:00:00"}
        for index in range(ROWS)
    ]  # fmt: skip
    rows[2611]["at"] = "2024-03-05T10:11:12.345678"
    rows[2711]["city"] = "Saint\rÉtienne"
    write_lines(tmp_path, rows)
    return tmp_path


READ = {"id": "read", "operator": "json_input", "params": {"path": "events.jsonl", "lines": True}}


def test_a_json_lines_input_streams_through_a_filter_into_a_csv_file_on_pandas(events, monkeypatch):
    result = streamed_and_whole(pipeline(READ, KEEP_SOME), events, monkeypatch, ["out.csv"])
    assert result.nodes["read"].extra["spilled_batches"] > 1
    assert result.nodes["some"].extra["spilled_batches"] > 1
    text = (events / "out.csv").read_bytes()
    assert b"\r\n" in text and b"2024-03-05 10:11:12.345678" in text


def test_a_json_lines_input_streams_through_a_filter_into_a_parquet_file_on_pandas(
    events, monkeypatch
):
    document = pipeline(READ, KEEP_SOME)
    document["nodes"][-1] = {
        "id": "write", "operator": "parquet_output", "params": {"path": "out.parquet"},
    }  # fmt: skip
    monkeypatch.setattr(spilled, "SPILL_FROM_BYTES", 2**40)
    executed(document, events)
    whole = pd.read_parquet(events / "out.parquet")
    monkeypatch.setattr(spilled, "SPILL_FROM_BYTES", 0)
    result = executed(document, events)
    pd.testing.assert_frame_equal(pd.read_parquet(events / "out.parquet"), whole)
    assert result.nodes["some"].extra["spilled_batches"] > 1
    assert result.nodes["write"].extra["rows_written"] == len(whole)


def test_a_node_that_needs_every_row_gets_the_batches_concatenated(events, monkeypatch):
    """An aggregate on pandas reads a frame: the filter above it joins its batches' rows."""
    document = pipeline(READ, KEEP_SOME, BY_CITY)
    result = streamed_and_whole(document, events, monkeypatch, ["out.csv"])
    assert result.nodes["read"].extra["spilled_batches"] > 1
    assert "spilled_batches" not in result.nodes["some"].extra


SHOP = {"shop": "sqlite:///shop.db"}
QUERY = {
    "id": "read",
    "operator": "sql_input",
    "params": {"connection": "shop", "query": "SELECT * FROM sales"},
}


def test_a_query_streams_through_validate_into_csv_files_on_pandas(tmp_path, monkeypatch):
    monkeypatch.setattr(reading, "READ_CHUNK_ROWS", 500)
    shop(tmp_path)
    links = SHOP
    rules = [
        {"rule": "not_null", "column": "city"},
        {"rule": "range", "column": "amount", "min": 2, "max": 40},
    ]
    checked = {"id": "checked", "operator": "validate", "params": {"rules": rules}}
    document = pipeline(QUERY, checked)
    document["edges"][1]["source_port"] = "valid"
    document["nodes"].append(
        {"id": "write_bad", "operator": "csv_output", "params": {"path": "bad.csv"}}
    )
    document["edges"].append({"source": "checked", "source_port": "invalid", "target": "write_bad"})
    written = ["out.csv", "bad.csv"]
    result = streamed_and_whole(document, tmp_path, monkeypatch, written, links)
    assert result.nodes["read"].extra["spilled_batches"] == ROWS // 500
    assert result.nodes["checked"].extra["spilled_batches"] > 1
    assert result.nodes["write_bad"].extra["rows_written"] > 0


def sql_pipeline(mode: str, keys: list[str]) -> dict:
    """The sales of `shop` written to the table `copied` of `target`."""
    write = {"id": "write", "operator": "sql_output",
             "params": {"connection": "target", "table": "copied", "mode": mode, "keys": keys,
                        "chunk_size": 300}}  # fmt: skip
    return {"format": "pipewright.pipeline", "version": 1, "name": "copy",
            "nodes": [QUERY, write], "edges": [{"source": "read", "target": "write"}]}  # fmt: skip


def test_spilled_rows_are_written_to_a_table_batch_by_batch(tmp_path, monkeypatch):
    monkeypatch.setattr(reading, "READ_CHUNK_ROWS", 500)
    monkeypatch.setattr(spilled, "SPILL_FROM_BYTES", 0)
    shop(tmp_path)
    links = {**SHOP, "target": "sqlite:///target.db"}
    result = executed(sql_pipeline("replace", ["id"]), tmp_path, links)
    assert result.nodes["read"].extra["spilled_batches"] == ROWS // 500
    with sqlite3.connect(tmp_path / "target.db") as database:
        copied = database.execute("SELECT * FROM copied ORDER BY id").fetchall()
        sales = sqlite3.connect(tmp_path / "shop.db").execute("SELECT * FROM sales").fetchall()
    assert copied == sales


def test_a_table_write_failing_in_a_later_batch_leaves_the_table_as_it_was(tmp_path, monkeypatch):
    """The last batch repeats a key: nothing of the batches before it stays."""
    monkeypatch.setattr(reading, "READ_CHUNK_ROWS", 500)
    monkeypatch.setattr(spilled, "SPILL_FROM_BYTES", 0)
    shop(tmp_path)
    links = {**SHOP, "target": "sqlite:///target.db"}
    with sqlite3.connect(tmp_path / "shop.db") as database:
        database.execute("INSERT INTO sales VALUES (12, 'Lyon', 1.5)")
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'target.db'}")
    with engine.begin() as connection:
        connection.execute(sa.text("CREATE TABLE copied (id INTEGER PRIMARY KEY, city TEXT, "
                                   "amount REAL)"))  # fmt: skip
        connection.execute(sa.text("INSERT INTO copied VALUES (-1, 'Old', 0.5)"))
    engine.dispose()
    result = executed(sql_pipeline("append", ["id"]), tmp_path, links, ok=False)
    assert "UNIQUE constraint failed" in str(result.nodes["write"].error)
    assert result.nodes["read"].extra["spilled_batches"] > 1
    with sqlite3.connect(tmp_path / "target.db") as database:
        assert database.execute("SELECT * FROM copied").fetchall() == [(-1, "Old", 0.5)]


class StoppedAfterFirstBatch(SpilledRows):
    """Spilled rows whose reader stops the node once it has taken the first batch."""

    ctx: NodeContext | None = None

    def frames(self, columns=None):
        for index, frame in enumerate(super().frames(columns)):
            if index == 1 and columns is None:
                self.ctx.stop()
            yield frame


def test_a_csv_write_stopped_between_batches_leaves_the_previous_file_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(spilled, "ROW_GROUP_ROWS", 1000)
    (tmp_path / "out.csv").write_text("a\n1\n")
    writer = SpillWriter(tmp_path / "spill.parquet")
    for start in range(0, 3000, 1000):
        writer.write(pa.table({"a": list(range(start, start + 1000))}))
    rows = writer.close()
    stopping = StoppedAfterFirstBatch(rows.path, rows.schema, rows.rows, rows.nulls, rows.batches)
    params = CsvOutputParams(path="out.csv")
    stopping.ctx = NodeContext("write", params, data_root=tmp_path)
    with pytest.raises(NodeCancelled):
        CsvOutput().run(stopping.ctx, {"in": stopping})
    assert (tmp_path / "out.csv").read_text() == "a\n1\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out.csv", "spill.parquet"]
