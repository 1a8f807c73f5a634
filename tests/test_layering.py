"""Dependencies point one way: pipewright → editor → runtime. The engine knows no web."""

from __future__ import annotations

import ast
import graphlib
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
        "import sys, runtime.cli, runtime.execution.executor, runtime.checks.analysis;"
        "import runtime.operators.registry;"
        "runtime.operators.registry.default_registry();"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN_IN_RUNTIME!r}))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


PACKAGES = ("runtime", "editor", "pipewright", "bench")
"""The project's own packages: none takes another's underscored names."""


def module_file(dotted: str) -> Path | None:
    """The file of the project's module or package named `dotted`, or None if it is not one."""
    if dotted.split(".")[0] not in PACKAGES:
        return None
    base = ROOT.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def package_folder(path: Path) -> Path:
    """The folder a module belongs to: a package's own folder, a module's parent."""
    return path.parent


def dotted_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def absolute_module(node: ast.ImportFrom, path: Path) -> str:
    if not node.level:
        return node.module or ""
    package = dotted_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def parent_and_name(dotted: str) -> tuple[str, str]:
    parent, _, name = dotted.rpartition(".")
    return parent, name


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.endswith("__")


def foreign_private_names(path: Path) -> list[str]:
    """Underscored names (and modules) `path` takes from a project module outside its folder."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own_folder = package_folder(path)
    taken, modules = [], {}  # (module, name) pairs; local name → project module it binds
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if module_file(alias.name):
                    first = alias.name.split(".")[0]
                    modules[alias.asname or first] = alias.name if alias.asname else first
                    taken.append(parent_and_name(alias.name))
        elif isinstance(node, ast.ImportFrom):
            source = absolute_module(node, path)
            if module_file(source):
                taken.append(parent_and_name(source))
                for alias in node.names:
                    taken.append((source, alias.name))
                    if module_file(f"{source}.{alias.name}"):
                        modules[alias.asname or alias.name] = f"{source}.{alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            chain, value = [node.attr], node.value
            while isinstance(value, ast.Attribute):
                chain.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in modules:
                *parents, name = [modules[value.id], *reversed(chain)]
                taken.append((".".join(parents), name))
    return sorted(
        f"{module}.{name}"
        for module, name in set(taken)
        if is_private(name)
        and (source := module_file(module))
        and package_folder(source) != own_folder
    )


def test_no_package_imports_another_packages_underscored_names():
    offenders = {
        str(path.relative_to(ROOT)): names
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if (names := foreign_private_names(path))
    }
    assert offenders == {}


STAGE_RULES = {
    "document": ("operators",),
    "tables": ("operators",),
    "io": ("operators",),
    "operators": ("plan",),
    "plan": ("execution", "backends"),
}
"""runtime's one-way rules (../shared/LAYOUT.md): a package → the packages it never imports.
The vocabulary (documents, tables, io) knows no operators; operators describe their work and
know no planner; the planner decides and runs nothing."""


def runtime_imports(path: Path) -> list[tuple[int, str]]:
    """The runtime modules `path` imports as it runs (an import under `if TYPE_CHECKING:` only
    names a type for annotations and loads nothing, so it is left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")
        for statement in node.body
        for inner in ast.walk(statement)
    }
    found = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            module = absolute_module(node, path)
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return [(line, name) for line, name in found if name.startswith("runtime.")]


def test_runtime_stages_import_one_way():
    offences = []
    for package, never in STAGE_RULES.items():
        for path in sorted((ROOT / "runtime" / package).rglob("*.py")):
            for line, name in runtime_imports(path):
                if name.split(".")[1] in never:
                    offences.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert offences == []


def test_the_stage_rules_see_an_import_against_the_order(tmp_path):
    module = tmp_path / "runtime" / "operators" / "planning.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "from runtime.plan.model import Plan\n"
        "if TYPE_CHECKING:\n    from runtime.plan.build import build_plan\n"
        "def later():\n    import runtime.plan.fusion\n"
    )
    assert [name for _, name in runtime_imports(module)] == [
        "runtime.plan.model.Plan",
        "runtime.plan.fusion",
    ]


def test_runtime_folders_import_each_other_without_a_cycle():
    folders = {path.parent.name for path in (ROOT / "runtime").glob("*/__init__.py")}
    graph: dict[str, set[str]] = {folder: set() for folder in folders}
    for folder in folders:
        for path in (ROOT / "runtime" / folder).rglob("*.py"):
            for _, name in runtime_imports(path):
                target = name.split(".")[1]
                if target in folders and target != folder:
                    graph[folder].add(target)
    try:
        order = list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as cycle:
        raise AssertionError(f"runtime's folders import in a circle: {cycle.args[1]}") from None
    assert order.index("document") < order.index("plan") < order.index("execution")


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
