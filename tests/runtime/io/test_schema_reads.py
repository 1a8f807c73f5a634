"""Schemas read from files are kept by the file's identity (runtime/io/schema_reads.py): a
process that plans the same file again does not read it again, unless the file changed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.csv
import pyarrow.parquet as pq
import pytest

from runtime import lazy
from runtime.backends.duckdb import scans
from runtime.cli import main
from runtime.io.schema_reads import SETTLED_NS, read_once
from runtime.operators import csv_files

HOUR_NS = 3600 * 10**9
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def csv_reads(monkeypatch) -> list[str]:
    """The CSV files whose types were read: by pyarrow's streaming reader, or without pyarrow
    (runtime/io/csv_types.py, which these plain files always take)."""
    opened = []

    def counted(read):
        return lambda path, *a, **k: opened.append(path) or read(path, *a, **k)

    monkeypatch.setattr(lazy.pa_csv, "open_csv", counted(pyarrow.csv.open_csv))
    monkeypatch.setattr(csv_files, "plain_csv_types", counted(csv_files.plain_csv_types))
    return opened


def settled(path, hours_ago: int = 1) -> None:
    """Date the file's last write `hours_ago`: long enough ago for its reads to be kept."""
    past = time.time_ns() - hours_ago * HOUR_NS
    os.utime(path, ns=(past, past))


def write_pipeline(folder, reader: str = "csv_input", path: str = "people.csv") -> Path:
    """reader → filter → csv_output, as `folder`/p.json."""
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
    return folder / "p.json"


def explain(folder, reader: str, path: str) -> int:
    """Explain reader → filter → csv_output on DuckDB, as `python -m runtime explain` does."""
    arguments = ["--data-root", str(folder), "--backend", "duckdb", "--no-cache"]
    return main(["explain", str(write_pipeline(folder, reader, path)), *arguments])


def test_planning_a_csv_file_for_duckdb_again_reads_its_schema_no_more(tmp_path, csv_reads):
    (tmp_path / "people.csv").write_text("name,age\nada,36\nalan,17\n")
    settled(tmp_path / "people.csv")
    assert explain(tmp_path, "csv_input", "people.csv") == 0
    first = len(csv_reads)
    assert explain(tmp_path, "csv_input", "people.csv") == 0
    # once: the node's schema and DuckDB's types (checked, then rendered) share the read
    assert first == 1 and len(csv_reads) == first


def test_a_file_written_again_is_read_again_even_at_the_same_size(tmp_path, csv_reads, capsys):
    path = tmp_path / "people.csv"
    path.write_text("name,age\nada,36\n")
    settled(path, hours_ago=2)
    assert explain(tmp_path, "csv_input", "people.csv") == 0
    path.write_text("name,age\nada,xx\n")  # the same size: age is now text
    settled(path)
    assert explain(tmp_path, "csv_input", "people.csv") == 0
    assert "'age' is string but '18' is integer" in capsys.readouterr().out
    assert len(csv_reads) == 2


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


def test_a_footer_kept_by_code_that_lowered_columns_otherwise_is_read_again(tmp_path, monkeypatch):
    pq.write_table(pa.table({"name": ["ada", "alan"], "age": [36, 17]}), tmp_path / "p.parquet")
    settled(tmp_path / "p.parquet")
    opened, parquet_file = [], pq.ParquetFile
    monkeypatch.setattr(
        lazy.pq, "ParquetFile", lambda path: opened.append(path) or parquet_file(path)
    )
    assert explain(tmp_path, "parquet_input", "p.parquet") == 0
    assert explain(tmp_path, "parquet_input", "p.parquet") == 0
    assert len(opened) == 2  # the node's schema and the scan's footer, once each
    monkeypatch.setattr(scans, "lowering_digest", lambda: "another version")
    assert explain(tmp_path, "parquet_input", "p.parquet") == 0
    assert len(opened) == 3  # the footer alone


def command(folder, *options: str, reader: str = "csv_input", path: str = "people.csv") -> str:
    """`python -m runtime run` of people.csv (or `path`) → adults → out.csv on DuckDB in a fresh
    process: its exit code and whether it imported pyarrow."""
    pipeline = write_pipeline(folder, reader, path)
    arguments = [str(pipeline), "--data-root", str(folder), "--backend", "duckdb"]
    code = (
        "import sys; from runtime.cli import main;"
        f"code = main(['run', *{[*arguments, '--no-cache', *options]!r}]);"
        "print(code, 'pyarrow' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


MARKED = "\ufeffname,age\nada,36\nalan,17\n"
"""A file whose types pyarrow reads: a byte-order mark is beyond runtime/io/csv_types.py."""


def test_a_plain_csv_file_is_typed_without_pyarrow_even_by_the_first_command(tmp_path):
    (tmp_path / "people.csv").write_text("name,age\nada,36\nalan,17\n")
    settled(tmp_path / "people.csv")
    assert command(tmp_path) == "0 False"
    assert (tmp_path / "out.csv").read_text().splitlines() == ["name,age", "ada,36"]


def test_the_next_command_takes_a_settled_csv_file_s_types_from_disk_without_pyarrow(tmp_path):
    (tmp_path / "people.csv").write_text(MARKED)
    settled(tmp_path / "people.csv")
    assert command(tmp_path) == "0 True"
    (tmp_path / "out.csv").unlink()
    assert command(tmp_path) == "0 False"
    assert (tmp_path / "out.csv").read_text().splitlines() == ["name,age", "ada,36"]
    assert len(list((tmp_path / ".pipewright" / "schemas").glob("*.json"))) == 2


def test_the_next_command_plans_a_settled_parquet_file_from_its_footer_on_disk_without_pyarrow(
    tmp_path,
):
    zone = pa.timestamp("us", tz="Europe/Paris")
    table = pa.table(
        {
            "name": pa.array(["ada", "alan"]).dictionary_encode(),
            "age": [36, 17],
            "paid": pa.array([Decimal("1.50"), None], pa.decimal128(5, 2)),
            "seen": pa.array([datetime(2020, 1, 2, 3, 4, tzinfo=UTC), None], zone),
            "home": [{"city": "London", "floor": 2}, None],
        }
    )
    pq.write_table(table, tmp_path / "people.parquet")
    settled(tmp_path / "people.parquet")
    parquet = {"reader": "parquet_input", "path": "people.parquet"}
    assert command(tmp_path, **parquet) == "0 True"
    first = (tmp_path / "out.csv").read_text()
    (tmp_path / "out.csv").unlink()
    assert command(tmp_path, **parquet) == "0 False"
    assert (tmp_path / "out.csv").read_text() == first
    assert first.splitlines() == [
        "name,age,paid,seen,home.city,home.floor",
        "ada,36,1.50,2020-01-02 04:04:00+01:00,London,2",
    ]


def test_the_next_command_reads_a_file_written_again_at_the_same_size(tmp_path):
    path = tmp_path / "people.csv"
    path.write_text(MARKED)
    settled(path, hours_ago=2)
    assert command(tmp_path) == "0 True"
    path.write_text(MARKED.replace("17", "1x"))  # age is text now: its filter fails
    settled(path)
    options = ["--data-root", str(tmp_path), "--backend", "duckdb", "--no-cache"]
    explain_command = [sys.executable, "-m", "runtime", "explain", str(tmp_path / "p.json")]
    explained = subprocess.run(
        [*explain_command, *options], capture_output=True, text=True, cwd=ROOT
    )
    assert "'age' is string but '18' is integer" in explained.stdout + explained.stderr


def test_a_fresh_command_reads_the_file_again(tmp_path):
    (tmp_path / "people.csv").write_text(MARKED)
    settled(tmp_path / "people.csv")
    assert command(tmp_path) == "0 True"
    assert command(tmp_path, "--fresh") == "0 True"


def test_a_file_written_moments_ago_is_not_kept_on_disk(tmp_path):
    (tmp_path / "people.csv").write_text(MARKED)
    settled(tmp_path / "people.csv", hours_ago=-1)  # "moments ago" for as long as the test runs
    assert command(tmp_path) == "0 True"
    assert command(tmp_path) == "0 True"
    assert not (tmp_path / ".pipewright" / "schemas").exists()
