"""The headless CLI: golden pipelines end to end, exit codes, messages without tracebacks."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from runtime import cli
from runtime.checks import analysis
from runtime.execution.events import read_json_lines
from runtime.operators import BUILTIN_OPERATORS
from runtime.operators.registry import Registry
from tests.runtime.engine_operators import Sink, Source, Step

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"


def runtime_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PIPEWRIGHT_DATA_ROOT", None)
    return subprocess.run(
        [sys.executable, "-m", "runtime", *args], capture_output=True, text=True, cwd=cwd, env=env
    )


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
@pytest.mark.parametrize("name", sorted(p.parent.name for p in GOLDEN.glob("*/pipeline.json")))
def test_golden_pipeline_produces_its_expected_files(name, backend, tmp_path):
    """On either backend, byte for byte: DuckDB segments keep pandas' row order and dtypes."""
    case = GOLDEN / name
    shutil.copytree(case / "input", tmp_path, dirs_exist_ok=True)
    args = shlex.split((case / "args").read_text()) if (case / "args").exists() else []
    result = runtime_cli(
        "run", str(case / "pipeline.json"), "--data-root", str(tmp_path), *args,
        "--backend", backend, cwd=ROOT,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    for expected in sorted((case / "expected").rglob("*")):
        if expected.is_file():
            relative = expected.relative_to(case / "expected")
            assert (tmp_path / relative).read_text() == expected.read_text(), f"{name}: {relative}"
    assert not list(tmp_path.rglob("*.tmp")), "no temporary files are left behind"


def write_pipeline(folder: Path, nodes: list, edges: list, **config) -> Path:
    path = folder / "pipeline.json"
    path.write_text(json.dumps({"name": "t", "config": config, "nodes": nodes, "edges": edges}))
    return path


def read_write(source: str = "in.csv") -> tuple[list, list]:
    nodes = [
        {"id": "read", "operator": "csv_input", "params": {"path": source}},
        {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
    ]
    return nodes, [{"source": "read", "target": "write"}]


def test_run_prints_a_summary_table_and_writes_events(tmp_path):
    (tmp_path / "in.csv").write_text("a\n1\n2\n")
    pipeline = write_pipeline(tmp_path, *read_write())
    result = runtime_cli(
        "run", str(pipeline), "--data-root", ".", "--events", "ev.jsonl", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["node", "status", "rows", "in", "rows", "out", "seconds", "on"]
    assert lines[2].split()[:3] == ["read", "succeeded", "2"]  # no rows in, 2 out
    assert lines[3].split()[:4] == ["write", "succeeded", "2", "0"]  # 2 in, none out
    assert lines[3].split()[-1] == "pandas"  # small inputs: the backend `auto` chose
    assert "run succeeded in" in result.stdout
    events = read_json_lines(tmp_path / "ev.jsonl")
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[-1]["type"] == "run_finished" and events[-1]["status"] == "succeeded"


def test_events_to_a_dash_go_to_standard_output_and_the_table_to_standard_error(tmp_path):
    """`--events -` pipes the events (as `jq` would read them): nothing else on standard
    output, and no file named '-'."""
    (tmp_path / "in.csv").write_text("a\n1\n2\n")
    pipeline = write_pipeline(tmp_path, *read_write())
    result = runtime_cli("run", str(pipeline), "--data-root", ".", "--events", "-", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[-1]["type"] == "run_finished" and events[-1]["status"] == "succeeded"
    assert "run succeeded in" in result.stderr
    assert not (tmp_path / "-").exists()


# `python -m runtime`, with `os._exit` reporting the collector's state before it exits.
_WATCHED_PROCESS = """
import gc, os, sys
from runtime import cli
exit_now = os._exit
def report_and_exit(code):
    print(f"collecting={gc.isenabled()} frozen={gc.get_freeze_count() > 0}", flush=True)
    exit_now(code)
os._exit = report_and_exit
cli.run_as_process(sys.argv[1:])
"""


def test_the_cli_process_collects_garbage_during_a_run_except_for_its_modules(tmp_path):
    (tmp_path / "in.csv").write_text("a\n1\n2\n")
    pipeline = write_pipeline(tmp_path, *read_write())
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-c", _WATCHED_PROCESS, "run", str(pipeline), "--data-root", "."]
    result = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    assert "run succeeded in" in result.stdout  # flushed before the exit that skips teardown
    assert result.stdout.rstrip().endswith("collecting=True frozen=True")


def test_a_missing_input_file_fails_the_run_with_exit_1_and_no_traceback(tmp_path):
    pipeline = write_pipeline(tmp_path, *read_write("nowhere.csv"))
    result = runtime_cli("run", str(pipeline), "--data-root", ".", cwd=tmp_path)
    assert result.returncode == 1
    assert "read: failed: input file 'nowhere.csv' not found under the data root" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out.csv").exists()


def test_the_summary_says_a_failed_duckdb_segment_ran_on_duckdb(tmp_path, capsys):
    """Its nodes carry no results, yet they ran in DuckDB: the summary said "pandas"."""
    (tmp_path / "in.csv").write_text("a\n1\n2\n")
    (tmp_path / "out.csv").mkdir()  # the write fails
    nodes, edges = read_write()
    keep = {"id": "keep", "operator": "filter", "params": {"condition": "a > 1"}}
    edges = [{"source": "read", "target": "keep"}, {"source": "keep", "target": "write"}]
    pipeline = write_pipeline(tmp_path, [nodes[0], keep, nodes[1]], edges)
    code = cli.main(["run", str(pipeline), "--data-root", str(tmp_path), "--backend", "duckdb"])
    assert code == 1
    table = [line.split() for line in capsys.readouterr().out.splitlines()[2:5]]
    assert [(row[0], row[1], row[-1]) for row in table] == [
        ("read", "skipped", "duckdb"),
        ("keep", "skipped", "duckdb"),
        ("write", "failed", "duckdb"),
    ]


def test_debug_shows_the_traceback_of_a_failed_node(tmp_path):
    pipeline = write_pipeline(tmp_path, *read_write("nowhere.csv"))
    result = runtime_cli("--debug", "run", str(pipeline), "--data-root", ".", cwd=tmp_path)
    assert result.returncode == 1
    assert "Traceback" in result.stderr


def test_an_invalid_document_exits_2_with_one_line_per_problem(tmp_path):
    nodes = [
        {"id": "read", "operator": "csv_inptu", "params": {"path": "in.csv"}},
        {"id": "keep", "operator": "filter", "params": {"condition": "age >"}},
    ]
    pipeline = write_pipeline(tmp_path, nodes, [{"source": "read", "target": "gone"}])
    for command in ("validate", "run"):
        result = runtime_cli(command, str(pipeline), cwd=tmp_path)
        assert result.returncode == 2
        assert result.stderr.splitlines() == [
            "read.operator: unknown operator 'csv_inptu'; did you mean 'csv_input'?",
            "keep: Condition: unexpected end of expression at 1:6; expected an expression",
            "edges[0].target: edge read → gone refers to node 'gone', which does not exist; "
            "remove the edge or add the node",
            "keep.inputs.in: input port 'in' is not connected; connect an edge to it",
        ]


def test_validate_exits_0_for_a_valid_document():
    result = runtime_cli(
        "validate", str(GOLDEN / "branches_and_append" / "pipeline.json"), cwd=ROOT
    )
    assert result.returncode == 0
    assert result.stdout.endswith(": valid\n")


def test_malformed_json_and_missing_files_are_usage_errors(tmp_path):
    (tmp_path / "bad.json").write_text("{nope")
    bad = runtime_cli("validate", "bad.json", cwd=tmp_path)
    assert bad.returncode == 2
    assert bad.stderr.startswith("bad.json: not valid JSON: Expecting property name")
    missing = runtime_cli("run", "missing.json", cwd=tmp_path)
    assert missing.returncode == 2
    assert missing.stderr == "error: cannot read 'missing.json': No such file or directory\n"


def test_a_path_outside_the_data_root_is_refused_before_the_run(tmp_path):
    (tmp_path / "root").mkdir()
    (tmp_path / "secret.csv").write_text("a\n1\n")
    pipeline = write_pipeline(tmp_path, *read_write("../secret.csv"))
    result = runtime_cli("run", str(pipeline), "--data-root", "root", cwd=tmp_path)
    assert result.returncode == 2
    assert "read: Path: path '../secret.csv' is outside the data root" in result.stderr


def test_relative_paths_resolve_under_the_environment_data_root(tmp_path):
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "in.csv").write_text("a\n1\n")
    pipeline = write_pipeline(tmp_path, *read_write())
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PIPEWRIGHT_DATA_ROOT": str(tmp_path / "root")}
    result = subprocess.run(
        [sys.executable, "-m", "runtime", "run", str(pipeline)],
        capture_output=True, text=True, cwd=tmp_path, env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "root" / "out.csv").read_text() == "a\n1\n"


def test_schema_and_operators_print_json():
    schema = json.loads(runtime_cli("schema", cwd=ROOT).stdout)
    assert schema["properties"]["format"]["const"] == "pipewright.pipeline"
    catalog = json.loads(runtime_cli("operators", "--json", cwd=ROOT).stdout)
    assert {"csv_input", "filter", "csv_output"} <= {entry["name"] for entry in catalog}
    table = runtime_cli("operators", cwd=ROOT).stdout
    assert "csv_input" in table and "input" in table
    assert "in → conditions[].name,otherwise Route rows" in table  # ports that follow params


def test_ctrl_c_cancels_the_run_and_exits_130(tmp_path, monkeypatch, capsys):
    """A real SIGINT, delivered to this process while the CLI runs a slow node."""
    registry = Registry([Source, Step, Sink], lazy=BUILTIN_OPERATORS)
    monkeypatch.setattr(analysis, "default_registry", lambda: registry)
    nodes = [
        {"id": "slow", "operator": "test_source", "params": {"sleep_s": 10}},
        {"id": "after", "operator": "test_sink"},
    ]
    pipeline = write_pipeline(tmp_path, nodes, [{"source": "slow", "target": "after"}])
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    code = cli.main(["run", str(pipeline), "--data-root", str(tmp_path)])
    timer.join()
    assert code == 130
    output = capsys.readouterr()
    assert "cancelling" in output.err
    assert "run cancelled in" in output.out


def test_a_malformed_param_is_a_usage_error_naming_it(tmp_path):
    pipeline = write_pipeline(tmp_path, *read_write())
    result = runtime_cli("validate", str(pipeline), "--param", "min_age", cwd=tmp_path)
    assert result.returncode == 2
    assert "--param expects NAME=VALUE, got 'min_age'" in result.stderr
