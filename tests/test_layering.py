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


PACKAGES = ("runtime", "editor")


def module_file(dotted: str) -> Path | None:
    """The file of a runtime/editor module or package named `dotted`, or None if it is not one."""
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


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.endswith("__")


def foreign_private_names(path: Path) -> list[str]:
    """Underscored names `path` takes from a runtime/editor module outside its own folder."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own_folder = package_folder(path)
    found, modules = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if module_file(alias.name):
                    bound = alias.asname or alias.name
                    modules[bound] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            source = absolute_module(node, path)
            source_file = module_file(source)
            if source_file is None:
                continue
            for alias in node.names:
                if module_file(f"{source}.{alias.name}"):
                    modules[alias.asname or alias.name] = f"{source}.{alias.name}"
                if is_private(alias.name) and package_folder(source_file) != own_folder:
                    found.append(f"{source}.{alias.name}")
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and is_private(node.attr)):
            continue
        chain, value = [], node.value
        while isinstance(value, ast.Attribute):
            chain.append(value.attr)
            value = value.value
        if not (isinstance(value, ast.Name) and value.id in modules):
            continue
        dotted = ".".join([modules[value.id], *reversed(chain)])
        source_file = module_file(dotted)
        if source_file and package_folder(source_file) != own_folder:
            found.append(f"{dotted}.{node.attr}")
    return sorted(set(found))


def test_no_package_imports_another_packages_underscored_names():
    offenders = {
        str(path.relative_to(ROOT)): names
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if (names := foreign_private_names(path))
    }
    assert offenders == {}
