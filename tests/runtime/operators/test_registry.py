"""The operator registry, including operators that installed packages publish."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from runtime.operators import BUILTIN_OPERATORS
from runtime.operators.contract import Operator, OperatorParams
from runtime.operators.registry import ENTRY_POINT_GROUP, Registry, default_registry


def runtime_cli(*args: str, site: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": f"{site}{os.pathsep}{Path.cwd()}"}
    return subprocess.run(
        [sys.executable, "-m", "runtime", *args], capture_output=True, text=True, env=env, cwd=cwd
    )


def test_an_installed_plugin_operator_appears_in_the_catalog_and_runs(plugin_site, tmp_path):
    listed = runtime_cli("operators", "--json", site=plugin_site, cwd=Path.cwd())
    assert listed.returncode == 0, listed.stderr
    names = [entry["name"] for entry in json.loads(listed.stdout)]
    assert "reverse_rows" in names and "csv_input" in names
    assert "operator plugin 'pipewright_plugin_demo:NoSuchOperator' was not loaded" in listed.stderr

    (tmp_path / "in.csv").write_text("n\n1\n2\n3\n")
    pipeline = {
        "name": "plugin",
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": "in.csv"}},
            {"id": "flip", "operator": "reverse_rows"},
            {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
        ],
        "edges": [{"source": "read", "target": "flip"}, {"source": "flip", "target": "write"}],
    }
    (tmp_path / "p.json").write_text(json.dumps(pipeline))
    ran = runtime_cli("run", "p.json", "--data-root", ".", site=plugin_site, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert (tmp_path / "out.csv").read_text() == "n\n3\n2\n1\n"


def test_the_installed_plugins_lifecycle_operator_opens_once_and_closes_after_retries(
    plugin_site, tmp_path
):
    (tmp_path / "in.csv").write_text("n\n1\n")
    journal = {"id": "note", "operator": "journal", "params": {"fail_times": 1}, "retries": 1}
    pipeline = {
        "name": "lifecycle",
        "config": {"retry_delay_s": 0},
        "nodes": [{"id": "read", "operator": "csv_input", "params": {"path": "in.csv"}}, journal],
        "edges": [{"source": "read", "target": "note"}],
    }
    (tmp_path / "p.json").write_text(json.dumps(pipeline))
    ran = runtime_cli("run", "p.json", "--data-root", ".", site=plugin_site, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    lines = (tmp_path / "journal.txt").read_text().splitlines()
    assert lines == [
        "note open",
        "note run 1",
        "note ran 1",
        "note run 2",
        "note ran 2",
        "note close",
    ]


def test_without_the_plugin_installed_its_operator_is_unknown():
    assert "reverse_rows" not in default_registry()


def test_an_operator_name_can_be_registered_only_once():
    class Twice(Operator):
        name, kind, title = "twice", "process", "Twice"
        Params = OperatorParams

    registry = Registry([Twice])
    with pytest.raises(ValueError, match="an operator named 'twice' is already registered"):
        registry.register(Twice)


def test_an_incomplete_operator_is_refused_at_registration():
    class Nameless(Operator):
        kind, title = "process", "No name"

    with pytest.raises(TypeError, match="operator Nameless does not set `name`"):
        Registry([Nameless])


def test_the_catalog_lists_ports_and_a_params_schema_for_every_operator():
    for entry in default_registry().catalog():
        assert entry["kind"] in ("input", "process", "output")
        assert entry["title"]
        assert entry["params_schema"]["type"] == "object"
        assert all({"name", "many", "required"} <= set(port) for port in entry["inputs"])


def test_every_builtin_operator_is_listed_under_its_own_name():
    registry = Registry(lazy=BUILTIN_OPERATORS)
    for name in BUILTIN_OPERATORS:
        assert registry.get(name).name == name


def test_a_run_imports_only_the_operators_it_uses():
    code = (
        "import sys, runtime.operators.registry; r = runtime.operators.registry.default_registry();"
        "r.get('csv_input'); r.get('filter');"
        "print('sqlalchemy' in sys.modules, 'openpyxl' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.split() == ["False", "False"], result.stderr


def test_installed_plugins_are_looked_for_only_when_a_name_is_not_a_builtins(
    plugin_site, monkeypatch
):
    """Reading every installed distribution's metadata costs more than planning a small
    pipeline: a pipeline of built-in operators never pays it."""
    monkeypatch.syspath_prepend(str(plugin_site))
    scans, scan = [], importlib.metadata.entry_points
    monkeypatch.setattr(
        importlib.metadata, "entry_points", lambda **kw: scans.append(kw) or scan(**kw)
    )
    registry = Registry(lazy=BUILTIN_OPERATORS, plugins=ENTRY_POINT_GROUP)

    assert registry.get("csv_input").name == "csv_input" and "filter" in registry
    assert scans == []
    assert registry.get("reverse_rows").name == "reverse_rows"
    assert registry.get("no_such_operator") is None and "reverse_rows" in registry.names()
    assert scans == [{"group": ENTRY_POINT_GROUP}]
