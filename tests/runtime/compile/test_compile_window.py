"""A `window` node compiles: on pandas the script carries the operator's own computation and
writes the run's file byte for byte, with no Pipewright to import; on DuckDB it writes what a
run on DuckDB writes."""

from __future__ import annotations

import pandas as pd

from runtime.compile import compile_script
from runtime.document.spec import load_document
from runtime.execution.executor import execute
from runtime.io.paths import FileArea
from runtime.plan import build_plan
from runtime.plan.prepare import prepare
from tests.runtime.compile.scripts import compiled, run_script

SALES = (
    "shop,day,units,price\n"
    "b,2024-01-02,1,1.5\n"
    "a,2024-01-01,2,2.0\n"
    "b,2024-01-01,,3.0\n"
    ",2024-01-03,4,\n"
    "a,2024-01-02,5,4.0\n"
    "a,2024-01-02,6,0.5\n"
)
FUNCTIONS = [
    {"function": "row_number"},
    {"function": "rank"},
    {"function": "percent_rank"},
    {"function": "sum", "column": "units", "name": "running"},
    {"function": "mean", "column": "price", "name": "moving", "frame": {"preceding": 1}},
    {"function": "lag", "column": "units", "default": 0},
    {"function": "last", "column": "day", "frame": {"preceding": 0, "following": None}},
    {"function": "max", "column": "shop"},
]
DOCUMENT = {
    "name": "windows",
    "nodes": [
        {"id": "read", "operator": "csv_input",
         "params": {"path": "sales.csv", "dtypes": {"day": "date"}}},
        {"id": "w", "operator": "window",
         "params": {"partition_by": ["shop"], "order_by": [{"column": "day"}],
                    "functions": FUNCTIONS}},
        {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
    ],
    "edges": [{"source": "read", "target": "w"}, {"source": "w", "target": "write"}],
}  # fmt: skip


def ran(folder, backend: str) -> None:
    area = FileArea.of(folder)
    plan = build_plan(load_document(DOCUMENT), data_root=area)
    if backend == "duckdb":
        plan = prepare(plan, backend="duckdb", data_root=area)
    assert execute(plan, data_root=area).ok


def test_a_window_scripts_file_is_the_runs_byte_for_byte(tmp_path):
    run, script = tmp_path / "run", tmp_path / "script"
    for folder in (run, script):
        folder.mkdir()
        (folder / "sales.csv").write_text(SALES)
    ran(run, "pandas")
    result = run_script(compiled(DOCUMENT, script, tmp_path), cwd=script)
    assert result.returncode == 0, result.stderr
    assert (script / "out.csv").read_text() == (run / "out.csv").read_text()


def test_a_window_compiled_for_duckdb_writes_what_a_duckdb_run_writes(tmp_path):
    run, script = tmp_path / "run", tmp_path / "script"
    for folder in (run, script):
        folder.mkdir()
        (folder / "sales.csv").write_text(SALES)
    ran(run, "duckdb")
    text = compile_script(load_document(DOCUMENT), data_root=script, backend="duckdb")
    assert "OVER (" in text  # the window runs in the DuckDB query
    path = tmp_path / "duckdb_script.py"
    path.write_text(text)
    result = run_script(path, cwd=script)
    assert result.returncode == 0, result.stderr
    pd.testing.assert_frame_equal(
        pd.read_csv(script / "out.csv"), pd.read_csv(run / "out.csv"), check_exact=False
    )
