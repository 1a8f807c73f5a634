"""A compiled script pivots and unpivots as a run does: the same files, byte for byte, with a
date column pivoted (its declared values written as dates in the script)."""

from __future__ import annotations

from tests.runtime.compile.scripts import compiled, run_script
from tests.runtime.compile.test_compile_duckdb import run_on_duckdb
from tests.runtime.compile.test_compile_pipelines import (
    PEOPLE,
    assert_same_outputs,
    run_both_ways,
)

DOCUMENT = {
    "name": "reshape",
    "nodes": [
        {"id": "read", "operator": "csv_input",
         "params": {"path": "people.csv", "dtypes": {"born": "date"}}},
        {"id": "wide", "operator": "pivot",
         "params": {"index": ["id"], "column": "team", "values": ["a", "b", "c"],
                    "value": "score", "function": "mean", "names": "{value}_mean"}},
        {"id": "long", "operator": "unpivot",
         "params": {"index": ["id"], "columns": ["a_mean", "b_mean"], "name": "team"}},
        {"id": "born", "operator": "pivot",
         "params": {"column": "born", "values": ["1815-12-10", "1906-12-09"],
                    "value": "name", "function": "first"}},
        {"id": "w1", "operator": "csv_output", "params": {"path": "long.csv"}},
        {"id": "w2", "operator": "csv_output", "params": {"path": "born.csv"}},
    ],
    "edges": [
        {"source": "read", "target": "wide"}, {"source": "wide", "target": "long"},
        {"source": "long", "target": "w1"}, {"source": "read", "target": "born"},
        {"source": "born", "target": "w2"},
    ],
}  # fmt: skip


def test_pivot_and_unpivot_scripts_write_what_a_run_writes(tmp_path):
    run, script = run_both_ways(DOCUMENT, {"people.csv": PEOPLE}, tmp_path)
    assert_same_outputs(DOCUMENT, run, script)
    assert (run / "born.csv").read_text() == "1815-12-10,1906-12-09\nAda,Grace\n"


def test_pivot_and_unpivot_duckdb_scripts_write_what_a_duckdb_run_writes(tmp_path):
    folders = {way: tmp_path / way for way in ("run", "script")}
    for folder in folders.values():
        folder.mkdir()
        (folder / "people.csv").write_text(PEOPLE)
    assert run_on_duckdb(DOCUMENT, folders["run"]).ok
    script = compiled(DOCUMENT, folders["script"], tmp_path, backend="duckdb")
    assert "UNNEST" in script.read_text() and "FILTER (WHERE" in script.read_text()
    result = run_script(script, cwd=folders["script"])
    assert result.returncode == 0, result.stderr
    assert_same_outputs(DOCUMENT, folders["run"], folders["script"])
    assert (folders["run"] / "born.csv").read_text() == "1815-12-10,1906-12-09\nAda,Grace\n"
