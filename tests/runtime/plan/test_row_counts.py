"""Rows in and out of every node on DuckDB are those pandas gives for the same pipeline (golden
pipelines, random ones, the CLI's run table), and a filter copied into the branches of a union
reports the rows it has without the copies, on both backends."""

from __future__ import annotations

import itertools
import shlex
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from runtime import cli
from runtime.checks.analysis import load_checked
from runtime.document.spec import load_document
from runtime.execution.events import ListSink
from runtime.execution.executor import execute
from runtime.execution.statuses import NodeStatus
from runtime.io.paths import FileArea
from runtime.plan import build_plan
from runtime.plan.prepare import prepare
from tests.runtime.plan.random_pipelines import pipelines, tables, write_tables
from tests.runtime.plan.seed import etl, node
from tests.runtime.test_cli import runtime_cli
from tests.strategies import bounded

GOLDEN = Path(__file__).resolve().parents[2] / "golden"
ROOT = GOLDEN.parents[1]
UNKNOWN_ON_DUCKDB = {"file_formats_read_binary": {"orders"}}
"""Nodes whose rows DuckDB's profile cannot show: the filter after this Parquet input is
pushed into its scan, which then counts only the rows the filter keeps."""
USERS = "id,name,email,age,country,amount,signup\n" + "".join(
    f"{n},u{n},u{n}@x.org,{n % 90},{'FR' if n % 3 else 'DE'},{n % 70}.5,2024-01-0{n % 9 + 1}\n"
    for n in range(500)
)


def figures(result) -> dict[str, tuple]:
    return {node_id: (found.rows_in, found.rows_out) for node_id, found in result.nodes.items()}


def run(document, folder: Path, backend: str, connections=None, parameters=None):
    area = FileArea.of(folder)
    plan = build_plan(document, parameters, data_root=folder)
    plan = prepare(plan, backend=backend, data_root=area, connections=connections)
    sink = ListSink()
    return plan, sink, execute(plan, sinks=[sink], data_root=area, connections=connections)


@pytest.mark.parametrize("name", sorted(p.parent.name for p in GOLDEN.glob("*/pipeline.json")))
def test_a_golden_pipeline_reports_the_same_rows_per_node_on_both_backends(
    name, tmp_path, monkeypatch
):
    case = GOLDEN / name
    args = shlex.split((case / "args").read_text()) if (case / "args").exists() else []
    options = cli._parser().parse_args(["run", str(case / "pipeline.json"), *args])
    monkeypatch.chdir(ROOT)  # the args name files relative to the repository
    connections = cli._connections(options.connections)
    document = load_checked((case / "pipeline.json").read_text())
    found = {}
    for backend in ("pandas", "duckdb"):
        shutil.copytree(case / "input", tmp_path / backend)
        *_, result = run(document, tmp_path / backend, backend, connections, dict(options.param))
        assert result.ok, result.error
        found[backend] = figures(result)
    expected = found["pandas"]
    for unknown in UNKNOWN_ON_DUCKDB.get(name, ()):
        expected[unknown] = (expected[unknown][0], None)
        for edge in document.edges:  # and the rows in of those reading it
            if edge.source == unknown:
                expected[edge.target][0].pop(edge.target_port)
    assert found["duckdb"] == expected


@bounded(60, tolerate=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(frames=tables(), data=st.data())
def test_a_random_pipeline_reports_pandas_rows_on_duckdb_or_none(frames, data, tmp_path_factory):
    folders = {backend: tmp_path_factory.mktemp(backend) for backend in ("pandas", "duckdb")}
    for folder in folders.values():
        write_tables(folder, frames)
    document = data.draw(pipelines(folders["pandas"]))
    results = {backend: run(document, folder, backend)[2] for backend, folder in folders.items()}
    if not (results["pandas"].ok and results["duckdb"].ok):
        return  # which node fails, and how, is the equivalence tests' matter
    expected = figures(results["pandas"])
    for node_id, (rows_in, rows_out) in figures(results["duckdb"]).items():
        assert rows_out in (None, expected[node_id][1]), node_id
        assert rows_in.items() <= expected[node_id][0].items(), node_id


def test_the_cli_run_table_shows_the_rows_of_the_nodes_inside_a_duckdb_segment(tmp_path):
    (tmp_path / "users.csv").write_text(USERS)
    write = {"id": "write", "operator": "csv_output", "params": {"path": "o.csv"}}
    document = etl(
        [node("by_country"), write],
        [{"source": "enrich", "target": "by_country"}, {"source": "by_country", "target": "write"}],
    )
    path = tmp_path / "etl.json"
    path.write_text(load_document(document).model_dump_json())
    table = {}
    for backend in ("pandas", "duckdb"):
        result = runtime_cli(
            "run",
            str(path),
            "--data-root",
            str(tmp_path),
            "--backend",
            backend,
            "--no-cache",
            cwd=tmp_path,
        )
        assert result.returncode == 0, result.stderr
        header, _, *lines = result.stdout.splitlines()
        columns = [header.index(name) for name in ("rows in", "rows out", "seconds")]
        table[backend] = {
            line.split()[0]: [line[a:b].strip() for a, b in itertools.pairwise(columns)]
            for line in lines[: len(document["nodes"])]
        }
    adults = sum(1 for n in range(500) if n % 90 > 18)
    assert table["pandas"]["users"] == ["", "500"]
    assert table["pandas"]["adults"] == ["500", f"{adults}"]
    assert table["pandas"]["enrich"] == [f"{adults}", f"{adults}"]
    assert table["duckdb"] == table["pandas"]


COPIED = {
    "name": "copied",
    "nodes": [
        {"id": "users", "operator": "csv_input", "params": {"path": "users.csv"}},
        {"id": "again", "operator": "sort", "params": {"by": [{"column": "id"}]}},
        {"id": "both", "operator": "union", "params": {}},
        {"id": "adults", "operator": "filter", "params": {"condition": "age > 18"}},
        {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
    ],
    "edges": [
        {"source": "users", "target": "again"},
        {"source": "users", "target": "both"},
        {"source": "again", "target": "both"},
        {"source": "both", "target": "adults"},
        {"source": "adults", "target": "write"},
    ],
}


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
def test_a_filter_copied_into_a_unions_branches_reports_its_rows_without_the_copies(
    backend, tmp_path
):
    (tmp_path / "users.csv").write_text(USERS)
    document = load_document(COPIED)
    written = execute(build_plan(document), data_root=tmp_path)  # no pass has run
    plan, sink, result = run(document, tmp_path, backend)
    assert "adults#2" in plan.nodes
    assert backend == "pandas" or {"adults", "adults#2"} <= set(plan.segments[0].nodes)
    adults = sum(1 for n in range(500) if n % 90 > 18)
    assert written.nodes["adults"].rows_in == {"in": 1000}
    assert written.nodes["adults"].rows_out == 2 * adults
    assert figures(result)["adults"] == figures(written)["adults"]
    finals = [
        event
        for event in sink.of_type("node_status")
        if event["node"] == "adults" and event["status"] in NodeStatus.FINAL
    ]
    assert [(event["status"], event["metrics"]["rows_out"]) for event in finals] == [
        ("succeeded", 2 * adults)
    ]
    assert finals[0]["metrics"]["rows_in"] == {"in": 1000}
