"""Schemas read from files are kept by the file's identity (runtime/io/schema_reads.py): a
process that plans the same file again does not read it again, unless the file changed."""

from __future__ import annotations

import json
import os
import time

import pyarrow as pa
import pyarrow.csv
import pyarrow.parquet as pq
import pytest

from runtime import lazy
from runtime.cli import main
from runtime.io.schema_reads import SETTLED_NS, read_once

HOUR_NS = 3600 * 10**9


@pytest.fixture
def csv_reads(monkeypatch) -> list[str]:
    """The CSV files opened by pyarrow's streaming reader (every schema read of a CSV file)."""
    opened, open_csv = [], pyarrow.csv.open_csv
    monkeypatch.setattr(
        pyarrow.csv,
        "open_csv",
        lambda path, *a, **k: opened.append(path) or open_csv(path, *a, **k),
    )
    return opened


def settled(path, hours_ago: int = 1) -> None:
    """Date the file's last write `hours_ago`: long enough ago for its reads to be kept."""
    past = time.time_ns() - hours_ago * HOUR_NS
    os.utime(path, ns=(past, past))


def explain(folder, reader: str, path: str) -> int:
    """Explain reader → filter → csv_output on DuckDB, as `python -m runtime explain` does."""
    pipeline = {
        "name": "schemas",
        "nodes": [
            {"id": "read", "operator": reader, "params": {"path": path}},
            {"id": "adults", "operator": "filter", "params": {"condition": "age > 18"}},
            {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
        ],
        "edges": [{"source": "read", "target": "adults"}, {"source": "adults", "target": "write"}],
    }
    (folder / "p.json").write_text(json.dumps(pipeline))
    arguments = ["--data-root", str(folder), "--backend", "duckdb", "--no-cache"]
    return main(["explain", str(folder / "p.json"), *arguments])


def test_planning_a_csv_file_for_duckdb_again_reads_its_schema_no_more(tmp_path, csv_reads):
    (tmp_path / "people.csv").write_text("name,age\nada,36\nalan,17\n")
    settled(tmp_path / "people.csv")
    assert explain(tmp_path, "csv_input", "people.csv") == 0
    first = len(csv_reads)
    assert explain(tmp_path, "csv_input", "people.csv") == 0
    # once for the node's schema (a sample), once for DuckDB's types (checked, then rendered)
    assert first == 2 and len(csv_reads) == first


def test_a_file_written_again_is_read_again_even_at_the_same_size(tmp_path, csv_reads, capsys):
    path = tmp_path / "people.csv"
    path.write_text("name,age\nada,36\n")
    settled(path, hours_ago=2)
    assert explain(tmp_path, "csv_input", "people.csv") == 0
    path.write_text("name,age\nada,xx\n")  # the same size: age is now text
    settled(path)
    assert explain(tmp_path, "csv_input", "people.csv") == 0
    assert "'age' is string but '18' is integer" in capsys.readouterr().out
    assert len(csv_reads) == 4


def test_a_file_written_moments_ago_is_read_every_time(tmp_path):
    """Its modification time may not change when it is written again within the clock's tick."""
    path = tmp_path / "fresh.txt"
    path.write_text("a")
    reads = []
    for _ in range(2):
        read_once(path, "test", lambda: reads.append(path.read_text()))
    assert len(reads) == 2 and time.time_ns() - path.stat().st_mtime_ns < SETTLED_NS


def test_a_file_replaced_by_another_of_the_same_time_and_size_is_read_again(tmp_path):
    path, other = tmp_path / "data.txt", tmp_path / "new.txt"
    path.write_text("a")
    other.write_text("b")
    settled(path)
    os.utime(other, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns))
    assert read_once(path, "test", path.read_text) == "a"
    other.replace(path)  # a new inode
    assert read_once(path, "test", path.read_text) == "b"
    assert read_once(path, "other reader", lambda: "c") == "c"  # what is read is in the key


def test_planning_a_parquet_file_for_duckdb_again_reads_its_footer_no_more(tmp_path, monkeypatch):
    pq.write_table(pa.table({"name": ["ada", "alan"], "age": [36, 17]}), tmp_path / "p.parquet")
    settled(tmp_path / "p.parquet")
    opened, parquet_file, read_schema = [], pq.ParquetFile, pq.read_schema
    patched = lazy.pq  # the readers take pyarrow.parquet from here (runtime/lazy.py)
    monkeypatch.setattr(
        patched, "ParquetFile", lambda path: opened.append(path) or parquet_file(path)
    )
    monkeypatch.setattr(
        patched, "read_schema", lambda path: opened.append(path) or read_schema(path)
    )
    assert explain(tmp_path, "parquet_input", "p.parquet") == 0
    first = len(opened)
    assert explain(tmp_path, "parquet_input", "p.parquet") == 0
    assert first == 2 and len(opened) == first
