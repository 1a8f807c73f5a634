"""`runtime` is the engine's public surface, and the paths of the flat layout still import.

Plugins and the docs import from `runtime` itself; the names load on first use, so importing
the package (which every engine module does) stays cheap. Old paths such as
`runtime.operator` and `runtime.schema` give the module at its new place, with a warning.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import runtime
from runtime.moved import OLD_PATHS

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", sorted(runtime.PUBLIC))
def test_every_public_name_is_the_object_of_its_defining_module(name):
    module = importlib.import_module(runtime.PUBLIC[name])
    assert getattr(runtime, name) is getattr(module, name)


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'execute_everything'"):
        runtime.execute_everything  # noqa: B018


def test_importing_the_package_loads_no_engine_stage():
    code = "import sys, runtime; print(sorted(m for m in sys.modules if m.startswith('runtime.')))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['runtime.moved']"


@pytest.mark.parametrize("old", sorted(OLD_PATHS))
def test_an_old_path_gives_the_module_at_its_new_place_with_a_warning(old):
    code = (
        "import importlib, sys, warnings\n"
        "warnings.simplefilter('error')\n"
        f"try:\n    importlib.import_module({old!r})\n"
        "except DeprecationWarning as warning:\n    print(warning)\n"
        "warnings.simplefilter('ignore')\n"
        f"old = importlib.import_module({old!r})\n"
        f"new = importlib.import_module({OLD_PATHS[old]!r})\n"
        "print(old is new, new.__spec__.name)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    warning, same = result.stdout.splitlines()
    assert warning == f"{old} moved to {OLD_PATHS[old]}: import from there, or from runtime"
    assert same == f"True {OLD_PATHS[old]}"


def test_a_plugin_written_against_the_flat_layout_still_runs(tmp_path):
    from runtime import Registry, build_plan, execute, load_document

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from runtime.operator import Operator, OperatorParams
        from runtime.schema import Schema

    class Passing(Operator):
        name = "passing"
        kind = "process"
        title = "Passing"
        description = "Passes its rows on."
        Params = OperatorParams

        def output_schema(self, ctx, inputs) -> dict[str, Schema]:
            return {"out": inputs["in"]}

        def run(self, ctx, inputs):
            return {"out": inputs["in"]}

    (tmp_path / "in.csv").write_text("a\n1\n2\n")
    registry = Registry([Passing], lazy={"csv_input": "runtime.operators.csv_files:CsvInput"})
    document = load_document(
        {
            "name": "flat",
            "nodes": [
                {"id": "read", "operator": "csv_input", "params": {"path": "in.csv"}},
                {"id": "pass", "operator": "passing"},
            ],
            "edges": [{"source": "read", "target": "pass"}],
        }
    )
    result = execute(
        build_plan(document, registry=registry, data_root=tmp_path), data_root=tmp_path
    )
    assert result.nodes["pass"].status == "succeeded"
    assert result.nodes["pass"].rows_out == 2
