"""Dependencies point one way: pipewright → editor → runtime. The engine knows no web."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN_IN_RUNTIME = ("django", "channels", "editor", "pipewright", "daphne")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_no_runtime_module_imports_the_web_side():
    offenders = {
        str(path.relative_to(ROOT)): sorted(imported_modules(path) & set(FORBIDDEN_IN_RUNTIME))
        for path in (ROOT / "runtime").rglob("*.py")
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_running_the_engine_loads_no_django():
    code = (
        "import sys, runtime.cli, runtime.executor, runtime.graph, runtime.registry;"
        "runtime.registry.default_registry();"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN_IN_RUNTIME!r}))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_management_commands_share_the_console_not_the_command_line():
    """What `manage.py` commands share with `python -m runtime` lives in runtime.console;
    runtime.cli is that command line's own, and importing it would drag its commands along."""
    offenders = {}
    for path in (ROOT / "editor" / "management").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        modules |= {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        }
        if "runtime.cli" in modules:
            offenders[str(path.relative_to(ROOT))] = "runtime.cli"
    assert offenders == {}
