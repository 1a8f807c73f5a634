"""Scripts compiled for DuckDB run the plan's DuckDB segments with the runtime's own SQL and
write what a run on DuckDB writes: golden pipelines,
parameters bound (hostile text stays data), `--data-root`, a pandas node between two
segments; and they need neither Pipewright nor, when no node runs on pandas, pandas. Random
catalog pipelines: test_compile_pipelines.py, on both backends."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from bench.seed_etl import PIPELINE
from runtime.compile import CompileRefused, compile_script
from runtime.document.parameters import parse_cli_value
from runtime.document.spec import load_document
from runtime.execution.executor import execute
from runtime.io.paths import FileArea
from runtime.plan import build_plan
from runtime.plan.prepare import prepare
from tests.runtime.backends.both import assert_frames_match
from tests.runtime.compile.scripts import compiled, run_script
from tests.runtime.compile.test_compile_pipelines import (
    COMPILED_GOLDEN,
    GOLDEN,
    options_of,
    read_back,
)


def imports_of(text: str) -> set[str]:
    return {
        line.split()[1].split(".")[0]
        for line in text.splitlines()
        if line.startswith(("import ", "from "))
    }


def run_on_duckdb(document: dict, folder: Path, *parameters, connections=None):
    area = FileArea.of(folder)
    plan = build_plan(load_document(document), dict(parameters), data_root=area)
    plan = prepare(plan, backend="duckdb", data_root=area, connections=connections)
    return execute(plan, data_root=area, connections=connections)


@pytest.mark.parametrize("name", COMPILED_GOLDEN)
def test_a_golden_pipelines_duckdb_script_writes_what_a_duckdb_run_writes(name, tmp_path):
    """Byte for byte where a run on DuckDB writes the golden files; otherwise (a segment's
    rows in another order than pandas') the same rows as that run."""
    case = GOLDEN / name
    folders = {way: tmp_path / way for way in ("run", "script")}
    for folder in folders.values():
        shutil.copytree(case / "input", folder)
    connections_file = case / "connections.json"
    connections = json.loads(connections_file.read_text()) if connections_file.exists() else {}
    document = json.loads((case / "pipeline.json").read_text())
    options = options_of(case / "args")
    values = [
        (name[2:], parse_cli_value(text)) for name, text in zip(*[iter(options)] * 2, strict=True)
    ]
    ran = run_on_duckdb(document, folders["run"], *values, connections=connections)
    assert ran.ok, ran.error
    script = compiled(document, folders["script"], tmp_path, connections, backend="duckdb")
    text = script.read_text()
    assert "duckdb.connect(" in text and not imports_of(text) & {"runtime", "editor"}
    env = {f"PIPEWRIGHT_CONN_{name.upper()}": url for name, url in connections.items()}
    result = run_script(script, *options, cwd=folders["script"], env=env)
    assert result.returncode == 0, result.stderr
    for expected in sorted((case / "expected").rglob("*")):
        if not expected.is_file():
            continue
        relative = expected.relative_to(case / "expected")
        written, ran = folders["script"] / relative, folders["run"] / relative
        if ran.read_bytes() == expected.read_bytes():
            assert written.read_bytes() == expected.read_bytes(), f"{name}: {relative}"
        elif relative.suffix in (".csv", ".parquet"):
            assert_frames_match(read_back(written), read_back(ran), ordered=False)
        else:
            assert written.read_bytes() == ran.read_bytes(), f"{name}: {relative}"
    assert not list(folders["script"].rglob("*.tmp")), "no temporary files are left behind"


def seed(condition: str, config: dict | None = None) -> dict:
    """The seed ETL with the filter's condition, writing `out.csv`."""
    document = copy.deepcopy(PIPELINE)
    for item in document["nodes"]:
        if item["id"] == "adults":
            item["params"] = {"condition": condition}
        if item["operator"] == "csv_output":
            item["params"] = {"path": "${folder}/out.csv"}
    document["config"] = {"parameters": {"folder": "out"}, **(config or {})}
    return document


@pytest.fixture
def users(tmp_path):
    (tmp_path / "users.csv").write_text(
        "id,name,age,country,amount\n1,ada,30,FR,10.5\n2,bob,12,DE,3\n3,cy,40,FR,\n"
        '4,"o\'neil",19,"x\'); DROP TABLE t; --",2.5\n'
    )
    (tmp_path / "countries.csv").write_text(
        'country,country_name\nFR,France\nDE,Germany\n"x\'); DROP TABLE t; --",Evil\n'
    )
    return tmp_path


def test_the_seed_runs_as_one_duckdb_query_without_pandas(users, tmp_path):
    document = seed("age > 18")
    script = compiled(document, users, tmp_path, backend="duckdb")
    text = script.read_text()
    assert imports_of(text).isdisjoint({"pandas", "numpy", "runtime", "editor"})
    assert text.count("sql = (") == 1  # the whole pipeline is one COPY statement
    result = run_script(script, cwd=users)
    assert result.returncode == 0, result.stderr
    written = (users / "out" / "out.csv").read_bytes()
    assert run_on_duckdb(document, users).ok
    assert written == (users / "out" / "out.csv").read_bytes()


def test_a_hostile_parameter_value_is_bound_never_part_of_the_sql(users, tmp_path):
    document = seed("country = ${country} or age > ${age}")
    document["config"]["parameters"] |= {"country": "FR", "age": 100}
    script = compiled(document, users, tmp_path, backend="duckdb")
    text = script.read_text()
    assert "params['country']" in text and "params['age']" in text
    hostile = "x'); DROP TABLE t; --"
    result = run_script(script, "--country", hostile, "--age", "-1", cwd=users)
    assert result.returncode == 0, result.stderr
    written = pd.read_csv(users / "out" / "out.csv")
    assert sorted(written["country"]) == ["DE", "FR", hostile]  # age > -1: every row
    result = run_script(script, "--country", hostile, "--age", "99", cwd=users)
    assert result.returncode == 0, result.stderr
    assert pd.read_csv(users / "out" / "out.csv")["country_name"].tolist() == ["Evil"]


def test_a_negative_default_is_bound_as_the_option_says(users, tmp_path):
    document = seed("age > ${age}")
    document["config"]["parameters"] |= {"age": -1}
    script = compiled(document, users, tmp_path, backend="duckdb")
    assert "    params['age'],\n" in script.read_text()
    assert run_script(script, "--age", "35", cwd=users).returncode == 0
    assert pd.read_csv(users / "out" / "out.csv")["country"].tolist() == ["FR"]


def test_data_root_points_the_duckdb_script_at_other_files(users, tmp_path):
    script = compiled(seed("age > 18"), users, tmp_path, backend="duckdb")
    assert str(users) not in script.read_text()  # no path of the compiling machine
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "users.csv").write_text("id,name,age,country,amount\n9,zed,50,DE,1.5\n")
    shutil.copy(users / "countries.csv", other)
    result = run_script(script, "--data-root", str(other), "--folder", "x", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (other / "x" / "out.csv").read_text() == (
        f"country,users,amount_eur,mean_age,country_name\nDE,1,{1.5 * 0.92!r},50.0,Germany\n"
    )
    outside = run_script(script, "--data-root", str(other), "--folder", "..", cwd=tmp_path)
    assert outside.returncode != 0 and "outside the data root" in outside.stderr


def test_a_file_whose_columns_changed_since_compiling_stops_the_script(users, tmp_path):
    script = compiled(seed("age > 18"), users, tmp_path, backend="duckdb")
    (users / "users.csv").write_text("id,age,name,country,amount\n1,30,ada,FR,10.5\n")
    result = run_script(script, cwd=users)
    assert result.returncode != 0
    assert "'users.csv' does not hold the columns the script was compiled for" in result.stderr
    assert not (users / "out" / "out.csv").exists()


def test_a_pipeline_without_an_output_computes_its_last_nodes_on_duckdb(users, tmp_path):
    """A run of it runs every node to show its results: the script reads the last node's rows
    into its frame (it once failed to compile with a KeyError), and stops as the run fails
    when an input lost a column."""
    document = seed("age > 18")
    document["nodes"] = [item for item in document["nodes"] if item["id"] != "write"]
    document["edges"] = [edge for edge in document["edges"] if edge["target"] != "write"]
    script = compiled(document, users, tmp_path, backend="duckdb")
    assert "named = to_pandas(connection.sql(sql, params=bound)" in script.read_text()
    result = run_script(script, cwd=users)
    assert result.returncode == 0, result.stderr
    assert not (users / "out").exists()
    (users / "users.csv").write_text("id,name,country,amount\n1,ada,FR,10.5\n")
    assert run_script(script, cwd=users).returncode != 0


def test_a_pandas_node_between_two_duckdb_segments_reads_and_feeds_frames(users, tmp_path):
    """`sample` stays on pandas: the first segment hands it a frame, and the second reads its
    rows as an Arrow table registered with DuckDB."""
    document = {
        "name": "mixed",
        "nodes": [
            {"id": "users", "operator": "csv_input", "params": {"path": "users.csv"}},
            {"id": "adults", "operator": "filter", "params": {"condition": "age > 18"}},
            {"id": "some", "operator": "sample", "params": {"fraction": 1.0, "seed": 1}},
            {"id": "countries", "operator": "csv_input", "params": {"path": "countries.csv"}},
            {"id": "named", "operator": "join",
             "params": {"how": "left", "left_on": ["country"], "right_on": ["country"]}},
            {"id": "write", "operator": "parquet_output", "params": {"path": "named.parquet"}},
        ],
        "edges": [
            {"source": "users", "target": "adults"}, {"source": "adults", "target": "some"},
            {"source": "some", "target": "named", "target_port": "left"},
            {"source": "countries", "target": "named", "target_port": "right"},
            {"source": "named", "target": "write"},
        ],
    }  # fmt: skip
    script = compiled(document, users, tmp_path, backend="duckdb")
    text = script.read_text()
    assert text.count("duckdb.connect(") == 2 and "# 'some' (sample)" in text
    assert "connection.register(" in text and "to_pandas(connection.sql(" in text
    result = run_script(script, cwd=users)
    assert result.returncode == 0, result.stderr
    written = pd.read_parquet(users / "named.parquet")
    assert run_on_duckdb(document, users).ok
    pd.testing.assert_frame_equal(written, pd.read_parquet(users / "named.parquet"))
    assert sorted(written["country_name"]) == ["Evil", "France", "France"]


def test_appending_from_duckdb_adds_rows_without_a_second_header(users, tmp_path):
    document = seed("age > 18")
    document["nodes"][-1]["params"] = {"path": "out.csv", "mode": "append"}
    script = compiled(document, users, tmp_path, backend="duckdb")
    for _ in range(2):
        assert run_script(script, cwd=users).returncode == 0
    lines = (users / "out.csv").read_text().splitlines()
    assert lines[0].startswith("country,") and len(lines) == 5 and lines[1:3] == lines[3:]


def test_the_backend_comes_from_the_document_unless_one_is_asked_for(users):
    pipeline = load_document(seed("age > 18", {"backend": "duckdb"}))
    assert "import duckdb" in compile_script(pipeline, data_root=users)
    assert "duckdb" not in compile_script(pipeline, data_root=users, backend="pandas")
    auto = load_document(seed("age > 18", {"backend": "auto"}))
    assert "duckdb" not in compile_script(auto, data_root=users)  # small inputs: pandas
    with pytest.raises(CompileRefused, match="backend: expected one of auto, duckdb, pandas"):
        compile_script(pipeline, data_root=users, backend="polars")


def test_a_parameter_changing_the_querys_text_is_refused_naming_the_node(users):
    """A sort's direction from a parameter would change the SQL, not a bound value."""
    document = seed("age > 18")
    document["nodes"].append(
        {"id": "order", "operator": "sort",
         "params": {"by": [{"column": "country", "descending": "${down}"}]}}
    )  # fmt: skip
    document["edges"] = [
        edge if edge["target"] != "write" else {"source": "named", "target": "order"}
        for edge in document["edges"]
    ] + [{"source": "order", "target": "write"}]
    document["config"]["parameters"]["down"] = False
    with pytest.raises(CompileRefused, match="node 'order': the parameter 'down' changes"):
        compile_script(load_document(document), data_root=users, backend="duckdb")


def test_a_failed_duckdb_write_leaves_the_target_as_it_was_and_no_temporary_file(users, tmp_path):
    """Appending rows of other columns to a Parquet file fails as a run fails: the old file
    stays whole, and neither the staged file nor DuckDB's spill folder is left behind."""
    document = seed("age > 18")
    document["nodes"][-1] = {
        "id": "write", "operator": "parquet_output",
        "params": {"path": "out.parquet", "mode": "append"},
    }  # fmt: skip
    old = pd.DataFrame({"other": [1, 2]})
    old.to_parquet(users / "out.parquet", index=False)
    before = (users / "out.parquet").read_bytes()
    script = compiled(document, users, tmp_path, backend="duckdb")
    result = run_script(script, cwd=users)
    assert result.returncode != 0 and "cannot append to 'out.parquet'" in result.stderr
    assert (users / "out.parquet").read_bytes() == before
    assert sorted(path.name for path in users.iterdir()) == [
        "countries.csv", "out.parquet", "script.py", "users.csv"
    ]  # fmt: skip


def test_two_outputs_writing_one_file_are_pandas_code_as_a_run_leaves_them_to_pandas(users):
    document = seed("age > 18")
    document["nodes"].append(
        {"id": "again", "operator": "csv_output", "params": {"path": "out/out.csv"}}
    )
    document["edges"].append({"source": "named", "target": "again"})
    script = compile_script(load_document(document), data_root=users, backend="duckdb")
    assert "duckdb" not in script and script.count(".to_csv(") == 2


def test_a_pattern_is_listed_when_the_script_runs_and_names_each_rows_file(tmp_path):
    """The files of `parts/*.csv` are those under the data root when the script runs (a file
    added since compiling is read too), in the run's order, each row naming its file; the
    pattern itself may be a parameter."""
    parts = tmp_path / "parts"
    parts.mkdir()
    (parts / "a.csv").write_text("id,amount\n1,2.5\n2,3.0\n")
    (parts / "b.csv").write_text("id,amount\n3,1.0\n")
    document = {
        "name": "parts",
        "config": {"parameters": {"glob": "parts/*.csv"}},
        "nodes": [
            {"id": "read", "operator": "csv_input",
             "params": {"path": "${glob}", "file_name_column": "file"}},
            {"id": "big", "operator": "filter", "params": {"condition": "amount > 1"}},
            {"id": "write", "operator": "csv_output", "params": {"path": "big.csv"}},
        ],
        "edges": [{"source": "read", "target": "big"}, {"source": "big", "target": "write"}],
    }  # fmt: skip
    script = compiled(document, tmp_path, tmp_path, backend="duckdb")
    assert "read_names['read']" in script.read_text()
    (parts / "c.csv").write_text("id,amount\n4,9.0\n")
    (parts / "other.csv").write_text("id,amount\n5,7.0\n")
    result = run_script(script, "--glob", "parts/[ac].csv", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    written = (tmp_path / "big.csv").read_text()
    assert run_on_duckdb(document, tmp_path, ("glob", "parts/[ac].csv")).ok
    assert written == (tmp_path / "big.csv").read_text()
    assert written == "id,amount,file\n1,2.5,parts/a.csv\n2,3.0,parts/a.csv\n4,9.0,parts/c.csv\n"
    outside = run_script(script, "--glob", "../*.csv", cwd=tmp_path)
    assert outside.returncode != 0 and "pattern '../*.csv' goes up a folder" in outside.stderr


def test_without_stop_on_error_a_failed_segment_fails_its_nodes_and_the_script(users, tmp_path):
    document = seed("age > 18", {"stop_on_error": False})
    document["nodes"][-1]["params"] = {"path": "taken.csv", "mode": "error_if_exists"}
    (users / "taken.csv").write_text("already here\n")
    script = compiled(document, users, tmp_path, backend="duckdb")
    result = run_script(script, cwd=users)
    assert result.returncode == 1
    assert "'taken.csv' already exists and mode is error_if_exists" in result.stderr
    assert (users / "taken.csv").read_text() == "already here\n"


@pytest.mark.parametrize(
    ("condition", "field", "message"),
    [
        ("age > 18", "delimiter", "node 'users': 'delimiter' takes the parameter 'p'"),
        ("name != ${p}", "path", "node 'adults': the parameter 'p' is more than a value"),
    ],
)
def test_a_parameter_read_as_more_than_a_bound_value_is_refused_naming_the_node(
    condition, field, message, users
):
    """An input's reading option, or one value that is both a path and in a condition."""
    document = seed(condition)
    document["nodes"][0]["params"][field] = "${p}"
    document["config"]["parameters"]["p"] = "users.csv" if field == "path" else ","
    with pytest.raises(CompileRefused, match=message):
        compile_script(load_document(document), data_root=users, backend="duckdb")
