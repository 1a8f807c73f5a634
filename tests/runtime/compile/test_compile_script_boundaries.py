"""What a compiled script takes from outside and what stays out of it: parameters become
options with the pipeline's defaults, `--data-root` points it elsewhere, a path leading outside
the data root is refused, hostile names and texts stay data, and it imports nothing beyond
pandas, numpy, pyarrow and the standard library. And what compiling refuses (a plugin operator,
an incremental input), naming the node, through the CLI too."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from runtime import cli
from runtime.compile import CompileRefused, compile_script
from runtime.console import EXIT_INVALID, EXIT_OK
from runtime.document.spec import load_document
from runtime.expressions import literal
from runtime.operators.registry import default_registry
from tests.runtime.compile.scripts import compiled, run_script, write_people


def parameter_pipeline() -> dict:
    return {
        "name": "by country",
        "config": {"parameters": {"country": "FR", "limit": 10, "folder": "out"}},
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}},
            {"id": "pick", "operator": "filter", "params": {"condition": "country = ${country}"}},
            {"id": "first", "operator": "limit", "params": {"n": "${limit}"}},
            {"id": "write", "operator": "csv_output", "params": {"path": "${folder}/picked.csv"}},
        ],
        "edges": [
            {"source": "read", "target": "pick"},
            {"source": "pick", "target": "first"},
            {"source": "first", "target": "write"},
        ],
    }


def test_parameters_are_options_with_the_pipelines_defaults(tmp_path):
    write_people(tmp_path)
    script = compiled(parameter_pipeline(), tmp_path, tmp_path)
    assert run_script(script, cwd=tmp_path).returncode == 0
    assert (tmp_path / "out" / "picked.csv").read_text() == "name,country\nada,FR\nlinus,FR\n"
    result = run_script(
        script, "--country", "UK", "--limit", "1", "--folder", "other", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "other" / "picked.csv").read_text() == "name,country\nalan,UK\n"
    refused = run_script(script, "--limit", "many", cwd=tmp_path)
    assert refused.returncode == 2 and "invalid int value: 'many'" in refused.stderr


def test_data_root_points_the_script_at_another_folder(tmp_path):
    write_people(tmp_path / "data")
    script = compiled(parameter_pipeline(), tmp_path / "data", tmp_path)
    result = run_script(script, "--data-root", "data", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "data" / "out" / "picked.csv").exists()
    assert not (tmp_path / "out").exists()


def test_a_path_parameter_leading_outside_the_data_root_is_refused_by_the_script(tmp_path):
    write_people(tmp_path / "data")
    script = compiled(parameter_pipeline(), tmp_path / "data", tmp_path)
    result = run_script(script, "--data-root", "data", "--folder", "..", cwd=tmp_path)
    assert result.returncode != 0 and "outside the data root" in result.stderr
    assert not (tmp_path / "picked.csv").exists()


EVIL = "'); x = ('"
SUFFIX = "\n\"'"


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
def test_hostile_names_and_texts_stay_data(backend, tmp_path):
    """Column names, node ids, labels and the pipeline's name that look like code are
    written only as quoted strings and comments' reprs (and, on DuckDB, as quoted identifiers
    and bound values of the SQL): the script runs them as data."""
    hostile = "x'); __import__('os').system('touch HACKED'); ('\n\\"
    frame = pd.DataFrame({hostile: [1, 2, 3], "s": ["a'\"", "b\n", "c\\"]})
    frame.to_parquet(tmp_path / "in.parquet", index=False)
    quoted = "`" + hostile.replace("\\", "\\\\").replace("`", "\\`") + "`"
    condition = f"{quoted} > 1 and s != {literal(EVIL)}"
    mapping = {"target": hostile + "2", "expression": f"concat(s, {literal(SUFFIX)})"}
    document = {
        "name": hostile,
        "nodes": [
            {"id": "read", "operator": "parquet_input", "params": {"path": "in.parquet"},
             "label": hostile},
            {"id": "f", "operator": "filter", "params": {"condition": condition}},
            {"id": "t", "operator": "transform", "params": {"mappings": [mapping]}},
            {"id": "w", "operator": "parquet_output", "params": {"path": "out.parquet"}},
        ],
        "edges": [{"source": "read", "target": "f"}, {"source": "f", "target": "t"},
                  {"source": "t", "target": "w"}],
    }  # fmt: skip
    script = compiled(document, tmp_path, tmp_path, backend=backend)
    assert ("duckdb.connect(" in script.read_text()) == (backend == "duckdb")
    result = run_script(script, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "HACKED").exists()
    written = pd.read_parquet(tmp_path / "out.parquet")
    assert list(written.columns) == [hostile, "s", hostile + "2"]
    assert written[hostile + "2"].tolist() == ["b\n\n\"'", "c\\\n\"'"]


def test_a_plugin_operator_makes_compile_refuse_naming_the_node(pause_operator, tmp_path):
    write_people(tmp_path)
    document = load_document(
        {
            "name": "p",
            "nodes": [
                {"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}},
                {"id": "flip", "operator": "reverse_rows", "params": {}},
                {"id": "write", "operator": "csv_output", "params": {"path": "o.csv"}},
            ],
            "edges": [{"source": "read", "target": "flip"}, {"source": "flip", "target": "write"}],
        }
    )
    assert "reverse_rows" in default_registry()
    with pytest.raises(CompileRefused, match="node 'flip': operator 'reverse_rows' comes from a"):
        compile_script(document, data_root=tmp_path)


def test_an_incremental_input_makes_compile_refuse_naming_the_node(tmp_path):
    write_people(tmp_path)
    incremental = {"mode": "watermark", "column": "id"}
    read = {"path": "people.csv", "incremental": incremental}
    document = load_document(
        {
            "name": "p",
            "nodes": [
                {"id": "read", "operator": "csv_input", "params": read},
                {"id": "write", "operator": "csv_output", "params": {"path": "o.csv"}},
            ],
            "edges": [{"source": "read", "target": "write"}],
        }
    )
    with pytest.raises(CompileRefused, match="node 'read': an incremental input keeps its"):
        compile_script(document, data_root=tmp_path)


def test_the_cli_writes_the_script_or_says_why_not(tmp_path, capsys):
    write_people(tmp_path)
    source = tmp_path / "pipeline.json"
    source.write_text(json.dumps(parameter_pipeline()))
    code = cli.main(
        ["compile", str(source), "--data-root", str(tmp_path), "-o", str(tmp_path / "s.py")]
    )
    assert code == EXIT_OK
    assert (tmp_path / "s.py").read_text().startswith("#!/usr/bin/env python3")
    document = parameter_pipeline()
    document["nodes"][0]["params"] = {"path": "*.csv", "incremental": {"mode": "new_files"}}
    source.write_text(json.dumps(document))
    assert cli.main(["compile", str(source), "--data-root", str(tmp_path)]) == EXIT_INVALID
    assert "node 'read': an incremental input keeps" in capsys.readouterr().err


def test_a_script_imports_only_pandas_numpy_pyarrow_and_the_standard_library(tmp_path):
    write_people(tmp_path)
    script = compiled(parameter_pipeline(), tmp_path, tmp_path).read_text()
    imported = {
        line.split()[1].split(".")[0]
        for line in script.splitlines()
        if line.startswith(("import ", "from "))
    }
    assert imported <= {"__future__", "argparse", "json", "numpy", "operator", "os", "pandas",
                        "pyarrow", "pathlib", "shutil", "uuid", "contextlib", "functools",
                        "datetime", "re", "dataclasses", "fnmatch", "logging", "difflib",
                        "types", "itertools"}  # fmt: skip
