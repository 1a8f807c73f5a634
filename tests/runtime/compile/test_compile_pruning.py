"""A compiled pandas script prunes as a run does: its inputs read only the columns anything
downstream reads and its transforms skip the mappings nobody reads, and it still writes what
the run writes. A Parquet column whose pages are broken proves the script never reads it."""

from __future__ import annotations

import copy
import shutil

import pytest

from bench.seed_etl import PIPELINE
from runtime.document.spec import load_document
from runtime.execution.executor import execute
from runtime.io.paths import FileArea
from runtime.plan import build_plan
from runtime.plan.prepare import prepare
from tests.runtime.compile.scripts import compiled, run_script
from tests.runtime.operators.test_input_pruning import broken_column, users_by_duckdb


def run_on_pandas(document: dict, folder) -> None:
    area = FileArea.of(folder)
    plan = prepare(build_plan(load_document(document)), backend="pandas", data_root=area)
    result = execute(plan, data_root=area)
    assert result.ok, result.error


USERS = (
    "id,name,email,age,country,amount,signup\n"
    "1,ada,a@x,36,FR,10.5,2024-01-01\n2,bob,b@x,17,DE,3.0,2024-02-01\n"
    "3,cy,c@x,40,FR,,2024-03-01\n4,dee,d@x,22,DE,7.25,2024-04-01\n"
)


def test_the_seed_etls_script_reads_four_columns_skips_upper_and_writes_the_runs_file(tmp_path):
    folders = {way: tmp_path / way for way in ("run", "script")}
    for folder in folders.values():
        folder.mkdir()
        (folder / "users.csv").write_text(USERS)
        (folder / "countries.csv").write_text("country,country_name\nFR,France\nDE,Germany\n")
    run_on_pandas(PIPELINE, folders["run"])
    script = compiled(PIPELINE, folders["script"], tmp_path)
    text = script.read_text()
    assert "upper" not in text  # `upper(name)`: nothing reads `name`
    assert "context.columns = {'age', 'amount', 'country', 'id'}" in text
    assert "columns_to_read(context, context.params, file.location)" in text
    result = run_script(script, cwd=folders["script"])
    assert result.returncode == 0, result.stderr
    written = (folders["script"] / "out/pipewright.csv").read_text()
    assert written == (folders["run"] / "out/pipewright.csv").read_text()


def test_a_script_over_a_header_less_csv_reads_every_column(tmp_path):
    document = copy.deepcopy(PIPELINE)
    document["nodes"][0]["params"] = {"path": "users.csv", "header": False}
    document["nodes"][1]["params"] = {"condition": "column_4 > 18"}
    document["nodes"][2]["params"] = {
        "mappings": [{"target": "amount_eur", "expression": "column_6 * 0.92"}]
    }
    document["nodes"][3]["params"] = {
        "group_by": ["column_5"],
        "aggregations": [{"column": "amount_eur", "function": "sum", "name": "amount_eur"}],
    }
    document["nodes"][5]["params"] = {
        "how": "inner",
        "left_on": ["column_5"],
        "right_on": ["country"],
    }
    for folder in (tmp_path / "run", tmp_path / "script"):
        folder.mkdir()
        (folder / "users.csv").write_text(USERS.split("\n", 1)[1])
        (folder / "countries.csv").write_text("country,country_name\nFR,France\nDE,Germany\n")
    run_on_pandas(document, tmp_path / "run")
    script = compiled(document, tmp_path / "script", tmp_path)
    assert "columns_to_read" not in script.read_text()
    result = run_script(script, cwd=tmp_path / "script")
    assert result.returncode == 0, result.stderr
    written = (tmp_path / "script/out/pipewright.csv").read_text()
    assert written == (tmp_path / "run/out/pipewright.csv").read_text()


TOTALS = {
    "format": "pipewright.pipeline",
    "version": 1,
    "name": "totals",
    "nodes": [
        {"id": "users", "operator": "parquet_input", "params": {"path": "users.parquet"}},
        {
            "id": "enrich",
            "operator": "transform",
            "params": {
                "mappings": [
                    {"target": "shout", "expression": "upper(email)"},
                    {"target": "double", "expression": "amount * 2"},
                ]
            },
        },
        {
            "id": "totals",
            "operator": "aggregate",
            "params": {
                "group_by": ["country"],
                "aggregations": [{"column": "double", "function": "sum", "name": "double"}],
            },
        },
        {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
    ],
    "edges": [
        {"source": "users", "target": "enrich"},
        {"source": "enrich", "target": "totals"},
        {"source": "totals", "target": "write"},
    ],
}


@pytest.mark.parametrize("shouted", [False, True], ids=["unread", "read"])
def test_a_script_never_decodes_a_parquet_column_nothing_reads(tmp_path, shouted):
    """With `shout` unread the broken `email` column is never read, by the run or the
    script; once `shout` is read (grouped by), both fail alike."""
    document = copy.deepcopy(TOTALS)
    if shouted:
        document["nodes"][2]["params"]["group_by"] = ["country", "shout"]
    users_by_duckdb(tmp_path / "users.parquet")
    broken_column(tmp_path / "users.parquet", "email")
    (tmp_path / "run").mkdir()
    shutil.copy(tmp_path / "users.parquet", tmp_path / "run")
    area = FileArea.of(tmp_path / "run")
    plan = prepare(build_plan(load_document(document)), backend="pandas", data_root=area)
    ran = execute(plan, data_root=area)
    script = compiled(document, tmp_path, tmp_path / "run", backend="pandas")
    result = run_script(script, cwd=tmp_path)
    assert (result.returncode == 0) is ran.ok is (not shouted), result.stderr
    if not shouted:
        assert (tmp_path / "out.csv").read_text() == (tmp_path / "run/out.csv").read_text()
