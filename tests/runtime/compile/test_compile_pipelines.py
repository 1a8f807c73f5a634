"""Compiled scripts give the outputs of a run: golden pipelines byte for byte, random catalog
pipelines output for output (hypothesis), every kind of validate rule and the row and column
operators with their options, a branch that fails without stop_on_error, node ids that clash
with the script's own names. What a script takes as options and what compiling refuses:
test_compile_script_boundaries.py."""

from __future__ import annotations

import contextlib
import io
import json
import shlex
import shutil
import sys
import types
from itertools import pairwise
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from runtime.compile import compile_script
from runtime.document.spec import load_document
from runtime.execution.executor import execute
from runtime.io.paths import FileArea
from runtime.plan import build_plan
from runtime.plan.prepare import prepare
from tests.runtime.backends.both import assert_frames_match
from tests.runtime.compile.scripts import compiled, run_script, write_people
from tests.runtime.plan.random_pipelines import pipelines, tables, write_tables
from tests.strategies import bounded

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "tests" / "golden"
COMPILED_GOLDEN = [
    "branches_and_append",
    "file_formats_convert",
    "file_formats_read_binary",
    "filter_with_parameter",
    "route_by_condition",
    "processing_quality",
    "processing_sales",
    "sql_roundtrip",
]


def options_of(args_file: Path) -> list[str]:
    """The script's options for a golden case's `--param NAME=VALUE` arguments."""
    if not args_file.exists():
        return []
    words, options = shlex.split(args_file.read_text()), []
    for flag, value in pairwise(words):
        if flag == "--param":
            name, _, text = value.partition("=")
            options += [f"--{name}", text]
    return options


@pytest.mark.parametrize("name", COMPILED_GOLDEN)
def test_a_golden_pipelines_script_writes_its_expected_files(name, tmp_path):
    case, data = GOLDEN / name, tmp_path / "data"
    shutil.copytree(case / "input", data)
    connections_file = case / "connections.json"
    connections = json.loads(connections_file.read_text()) if connections_file.exists() else {}
    document = json.loads((case / "pipeline.json").read_text())
    script = compiled(document, data, tmp_path, connections)
    env = {f"PIPEWRIGHT_CONN_{name.upper()}": url for name, url in connections.items()}
    result = run_script(script, *options_of(case / "args"), cwd=data, env=env)
    assert result.returncode == 0, result.stderr
    for expected in sorted((case / "expected").rglob("*")):
        if expected.is_file():
            relative = expected.relative_to(case / "expected")
            assert (data / relative).read_text() == expected.read_text(), f"{name}: {relative}"
    assert not list(data.rglob("*.tmp")), "no temporary files are left behind"


def read_back(path: Path) -> pd.DataFrame:
    return pd.read_csv(path) if path.suffix == ".csv" else pd.read_parquet(path)


def run_in_process(script: str, data_root: Path) -> bool:
    """Run a script's `main` here (the golden tests run scripts as processes of their own,
    without Pipewright on their path); whether it finished."""
    module = types.ModuleType("compiled_script")
    sys.modules[module.__name__] = module  # its dataclasses look their module up
    try:
        exec(compile(script, "script.py", "exec"), module.__dict__)
        with contextlib.redirect_stdout(io.StringIO()):
            module.main(["--data-root", str(data_root)])
    except Exception:
        return False
    finally:
        del sys.modules[module.__name__]
    return True


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
@bounded(80, tolerate=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(frames=tables(), data=st.data())
def test_a_random_pipelines_script_writes_what_its_run_writes(
    backend, frames, data, tmp_path_factory
):
    """On pandas, CSV files byte for byte; on DuckDB, the rows of a run on DuckDB, which may
    come in another order where no sort defines it (as test_backends_random allows)."""
    folders = {way: tmp_path_factory.mktemp(way) for way in ("run", "script")}
    for folder in folders.values():
        write_tables(folder, frames)
    document = data.draw(pipelines(folders["run"], outputs=("csv_output", "parquet_output")))
    area = FileArea.of(folders["run"])
    plan = build_plan(document, data_root=area)
    if backend == "duckdb":
        plan = prepare(plan, backend=backend, data_root=area)
    result = execute(plan, data_root=area)
    script = compile_script(document, data_root=folders["script"], backend=backend)
    succeeded = run_in_process(script, folders["script"])
    assert succeeded == result.ok, result.error
    for node in document.nodes:
        if node.operator.endswith("_output"):
            path = node.params["path"]
            assert (folders["script"] / path).exists() == (folders["run"] / path).exists()
            if not (folders["run"] / path).exists():
                continue
            written, ran = read_back(folders["script"] / path), read_back(folders["run"] / path)
            if backend == "duckdb":
                assert_frames_match(written, ran, ordered=False)
                continue
            if path.endswith(".csv"):
                assert (folders["script"] / path).read_bytes() == (
                    folders["run"] / path
                ).read_bytes(), path
            pd.testing.assert_frame_equal(written, ran)


def run_both_ways(document: dict, files: dict[str, str], tmp_path: Path) -> tuple[Path, Path]:
    """Run `document` over `files` as a run and as its script; both folders afterwards."""
    folders = {way: tmp_path / way for way in ("run", "script")}
    for folder in folders.values():
        folder.mkdir()
        for name, text in files.items():
            (folder / name).write_text(text)
    pipeline = load_document(document)
    result = execute(build_plan(pipeline, data_root=folders["run"]), data_root=folders["run"])
    assert result.ok, result.error
    script = compiled(document, folders["script"], tmp_path)
    ran = run_script(script, cwd=folders["script"])
    assert ran.returncode == 0, ran.stderr
    return folders["run"], folders["script"]


def assert_same_outputs(document: dict, run: Path, script: Path) -> None:
    for node in document["nodes"]:
        if node["operator"].endswith("_output"):
            path = node["params"]["path"]
            assert (script / path).read_bytes() == (run / path).read_bytes(), path


PEOPLE = (
    "id,name,email,born,score,team\n"
    "1,Ada,ada@example.com,1815-12-10,9.5,a\n"
    "2,Linus,not-an-email,1969-12-28,,b\n"
    "2,Grace,grace@example.com,1906-12-09,11.0,z\n"
    "4,,x@y.z,2030-01-01,-1,a\n"
)


def test_every_kind_of_validate_rule_sorts_rows_and_words_reasons_like_a_run(tmp_path):
    rules = [
        {"rule": "not_null", "column": "name"},
        {"rule": "range", "column": "score", "min": 0, "max": 10},
        {"rule": "range", "column": "born", "min": "1900-01-01"},
        {"rule": "regex", "column": "email", "pattern": "[^@]+@[^@]+\\.[a-z]+"},
        {"rule": "allowed_values", "column": "team", "values": ["a", "b"]},
        {"rule": "unique", "columns": ["id"]},
    ]
    document = {
        "name": "checks",
        "nodes": [
            {"id": "read", "operator": "csv_input",
             "params": {"path": "people.csv", "dtypes": {"born": "date"}}},
            {"id": "check", "operator": "validate", "params": {"rules": rules}},
            {"id": "good", "operator": "csv_output", "params": {"path": "valid.csv"}},
            {"id": "bad", "operator": "json_output", "params": {"path": "invalid.jsonl"}},
        ],
        "edges": [
            {"source": "read", "target": "check"},
            {"source": "check", "source_port": "valid", "target": "good"},
            {"source": "check", "source_port": "invalid", "target": "bad"},
        ],
    }  # fmt: skip
    run, script = run_both_ways(document, {"people.csv": PEOPLE}, tmp_path)
    assert_same_outputs(document, run, script)
    assert "is below the minimum 1900-01-01" in (script / "invalid.jsonl").read_text()


def test_row_and_column_operators_with_their_options_match_a_run(tmp_path):
    document = {
        "name": "options",
        "nodes": [
            {"id": "read", "operator": "csv_input",
             "params": {"path": "people.csv", "dtypes": {"born": "date", "id": "string"}}},
            {"id": "fill", "operator": "fill_nulls",
             "params": {"values": {"score": 0.5, "name": "?", "born": "2000-01-01"}}},
            {"id": "cast", "operator": "cast", "params": {"types": {"score": "integer"}}},
            {"id": "pick", "operator": "sample", "params": {"fraction": 0.75, "seed": 3}},
            {"id": "order", "operator": "sort",
             "params": {"by": [{"column": "team", "descending": True}], "nulls_last": False}},
            {"id": "once", "operator": "deduplicate",
             "params": {"columns": ["team"], "keep": "last"}},
            {"id": "sum", "operator": "aggregate", "params": {"aggregations": [
                {"column": "score", "function": "sum"}, {"column": "name", "function": "first"},
                {"function": "size"}, {"column": "born", "function": "max"}]}},
            {"id": "w1", "operator": "csv_output", "params": {"path": "rows.csv"}},
            {"id": "w2", "operator": "parquet_output",
             "params": {"path": "sum.parquet", "compression": "none"}},
        ],
        "edges": [
            {"source": "read", "target": "fill"}, {"source": "fill", "target": "cast"},
            {"source": "cast", "target": "pick"}, {"source": "pick", "target": "order"},
            {"source": "order", "target": "once"}, {"source": "once", "target": "w1"},
            {"source": "cast", "target": "sum"}, {"source": "sum", "target": "w2"},
        ],
    }  # fmt: skip
    run, script = run_both_ways(document, {"people.csv": PEOPLE}, tmp_path)
    assert_same_outputs(document, run, script)


def test_every_built_in_operator_has_an_emitter():
    from runtime.compile.operators import emitter_for
    from runtime.operators import BUILTIN_OPERATORS

    assert [name for name in BUILTIN_OPERATORS if emitter_for(name) is None] == []


def test_without_stop_on_error_a_failed_branch_is_skipped_and_the_others_written(tmp_path):
    """As in such a run: the failing node's descendants are skipped, the other branch still
    writes its file, and the script ends with an error."""
    document = {
        "name": "keep going",
        "config": {"stop_on_error": False},
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}},
            {"id": "once", "operator": "csv_output",
             "params": {"path": "taken.csv", "mode": "error_if_exists"}},
            {"id": "copy", "operator": "csv_output", "params": {"path": "copy.csv"}},
        ],
        "edges": [{"source": "read", "target": "once"}, {"source": "read", "target": "copy"}],
    }  # fmt: skip
    write_people(tmp_path)
    (tmp_path / "taken.csv").write_text("already here\n")
    script = compiled(document, tmp_path, tmp_path)
    ran = run_script(script, cwd=tmp_path)
    assert ran.returncode == 1
    assert "node 'once' failed: 'taken.csv' already exists" in ran.stderr
    assert (tmp_path / "copy.csv").read_text() == (tmp_path / "people.csv").read_text()
    assert (tmp_path / "taken.csv").read_text() == "already here\n"


def test_node_ids_that_are_names_the_script_uses_get_frames_of_other_names(tmp_path):
    ids = ["pd", "compare", "conform", "to_pandas", "staged", "values", "check_valid", "check"]
    nodes = [{"id": "pd", "operator": "csv_input", "params": {"path": "people.csv"}}]
    nodes += [
        {"id": node_id, "operator": "filter", "params": {"condition": "country != 'UK'"}}
        for node_id in ids[1:-1]
    ]
    nodes += [
        {"id": "check", "operator": "validate",
         "params": {"rules": [{"rule": "not_null", "column": "name"}]}},
        {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
    ]  # fmt: skip
    edges = [{"source": a, "target": b} for a, b in pairwise(ids)]
    edges += [{"source": "check", "source_port": "valid", "target": "write"}]
    document = {"name": "names", "nodes": nodes, "edges": edges}
    run, script = run_both_ways(
        document, {"people.csv": "name,country\nada,FR\nalan,UK\n"}, tmp_path
    )
    assert_same_outputs(document, run, script)
