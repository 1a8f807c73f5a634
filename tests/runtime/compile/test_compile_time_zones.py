"""A compiled script's DuckDB session gives datetimes in the zone of the files' columns, as a
run does: a file Polars wrote in Europe/Paris is sorted and written with its offsets."""

from __future__ import annotations

import datetime as dt

import polars as pl

from runtime.document.spec import load_document
from runtime.execution.executor import execute
from runtime.plan import build_plan
from tests.runtime.compile.scripts import compiled, run_script

DOCUMENT = {
    "name": "zoned",
    "nodes": [
        {"id": "read", "operator": "parquet_input", "params": {"path": "seen.parquet"}},
        {"id": "s", "operator": "sort", "params": {"by": [{"column": "seen"}]}},
        {"id": "w", "operator": "csv_output", "params": {"path": "seen.csv"}},
    ],
    "edges": [{"source": "read", "target": "s"}, {"source": "s", "target": "w"}],
}


def test_a_scripts_datetimes_in_a_zone_are_written_as_a_runs(tmp_path):
    folders = {way: tmp_path / way for way in ("run", "script")}
    for folder in folders.values():
        folder.mkdir()
        pl.DataFrame(
            {"seen": [dt.datetime(2020, 7, 1, 12), dt.datetime(2020, 1, 1, 23, 30)]},
            schema_overrides={"seen": pl.Datetime("us", "Europe/Paris")},
        ).write_parquet(folder / "seen.parquet")
    result = execute(build_plan(load_document(DOCUMENT)), data_root=folders["run"])
    assert result.ok, result.error
    script = compiled(DOCUMENT, folders["script"], tmp_path, backend="duckdb")
    assert "SET TimeZone = 'Europe/Paris'" in script.read_text()
    ran = run_script(script, cwd=folders["script"])
    assert ran.returncode == 0, ran.stderr
    written = (folders["script"] / "seen.csv").read_text()
    assert written == (folders["run"] / "seen.csv").read_text()
    assert written.splitlines() == [
        "seen",
        "2020-01-02 00:30:00+01:00",
        "2020-07-01 14:00:00+02:00",
    ]
