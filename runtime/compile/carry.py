"""Runtime helpers a compiled script carries, copied from their one source: the runtime's own.

Some semantics are too intricate to spell out again in generated code (how a column is put in
the engine's dtypes, how a comparison treats nulls, how text becomes a date). The script then
holds a verbatim copy of the runtime function, taken from its module's source when the script
is compiled, never a hand-kept twin: `carried(functions)` returns their source with every
module-level name they use (constants, other helpers, imports), recursively.

Belongs here: finding and copying source. Does not belong here: choosing what to carry (the
emitters do) or laying out the script (`script.py`).
"""

from __future__ import annotations

import ast
import functools
import inspect
import sys
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field

from runtime import lazy

STAND_INS = {
    name: f"import {module.__name__} as {name}"
    for name, module in vars(lazy).items()
    if isinstance(module, lazy.LazyModule)
}
"""Names whose import in the script differs from the runtime module's: runtime.lazy's stand-ins
(`pd`, `pc`, `pq`) are the modules themselves."""

EXCEPTIONS = ("ExpressionError", "OperatorError", "ParamsError", "UnsafePathError")
"""The runtime's error classes carry positions and codes a script has no use for: the script
defines each as a plain exception (`script.py`), with the same message."""


@dataclass
class Carried:
    """What a script must hold for some runtime functions: import lines and definitions."""

    imports: set[str] = field(default_factory=set)
    definitions: dict[tuple[str, str], str] = field(default_factory=dict)
    """(module, name) → source, in the order they must appear (dependencies first)."""

    def names(self) -> set[str]:
        return {name for _, name in self.definitions}


def carried(objects: Iterable[object]) -> Carried:
    """The source of `objects` (runtime functions) and of all they use at module level."""
    result = Carried()
    for obj in objects:
        _carry(sys.modules[obj.__module__], obj.__name__, result, set())
    return result


def _carry(module, name: str, result: Carried, visiting: set) -> None:
    key = (module.__name__, name)
    if key in result.definitions or key in visiting or name in EXCEPTIONS:
        return
    statement = _module_statements(module.__name__).get(name)
    if statement is None:
        raise LookupError(f"{module.__name__} defines no '{name}' to carry")
    if isinstance(statement, ast.Import | ast.ImportFrom):
        result.imports.add(_import_line(module, statement, name))
        return
    visiting.add(key)
    statements = _module_statements(module.__name__)
    for used in _names_used(statement):
        if used == name or used not in statements:
            continue
        target = _defining_module(module, used)
        if target is module and isinstance(statements[used], ast.Import | ast.ImportFrom):
            result.imports.add(_import_line(module, statements[used], used))
        else:
            _carry(target, _original_name(module, used), result, visiting)
    visiting.discard(key)
    taken = {other: source for (mod, other), source in result.definitions.items()}
    source = textwrap.dedent(ast.get_source_segment(_source(module.__name__), statement))
    if name in taken and taken[name] != source:
        raise ValueError(f"two carried helpers are named '{name}' ({module.__name__})")
    result.definitions[key] = _with_decorators(module.__name__, statement, source)


def _defining_module(module, name: str):
    """The runtime module defining `name` when `module` imports it from there, else `module`."""
    statement = _module_statements(module.__name__)[name]
    if isinstance(statement, ast.ImportFrom):
        source = _resolved_module(module, statement)
        if source.startswith("runtime.") and source != "runtime.lazy":
            return sys.modules[source]
    return module


def _original_name(module, name: str) -> str:
    statement = _module_statements(module.__name__)[name]
    if isinstance(statement, ast.ImportFrom):
        for alias in statement.names:
            if (alias.asname or alias.name) == name:
                return alias.name
    return name


def _resolved_module(module, statement: ast.ImportFrom) -> str:
    if not statement.level:
        return statement.module
    package = module.__name__.rsplit(".", statement.level)[0]
    return f"{package}.{statement.module}" if statement.module else package


def _import_line(module, statement: ast.Import | ast.ImportFrom, name: str) -> str:
    if name in STAND_INS:
        return STAND_INS[name]
    for alias in statement.names:
        if (alias.asname or alias.name.split(".")[0]) != name:
            continue
        renamed = f" as {alias.asname}" if alias.asname else ""
        if isinstance(statement, ast.Import):
            return f"import {alias.name}{renamed}"
        return f"from {_resolved_module(module, statement)} import {alias.name}{renamed}"
    raise LookupError(name)


def _with_decorators(module_name: str, statement: ast.stmt, source: str) -> str:
    """`ast.get_source_segment` leaves out decorators: put them back."""
    decorators = getattr(statement, "decorator_list", [])
    text = _source(module_name)
    lines = [f"@{ast.get_source_segment(text, decorator)}" for decorator in decorators]
    return "\n".join([*lines, source])


def _names_used(statement: ast.stmt) -> set[str]:
    """Names read by a definition, leaving out annotations (they are never evaluated)."""
    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        for name, value in ast.iter_fields(node):
            if name in ("annotation", "returns"):
                continue
            items = value if isinstance(value, list) else [value]
            for item in items:
                if isinstance(item, ast.AST):
                    visit(item)
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            names.add(node.value.id)

    visit(statement)
    return names


@functools.cache
def _source(module_name: str) -> str:
    return inspect.getsource(sys.modules[module_name])


@functools.cache
def _module_statements(module_name: str) -> dict[str, ast.stmt]:
    """Each name a module binds at its top level, with the statement binding it."""
    bound: dict[str, ast.stmt] = {}
    for statement in ast.parse(_source(module_name)).body:
        if isinstance(statement, ast.FunctionDef | ast.ClassDef):
            bound[statement.name] = statement
        elif isinstance(statement, ast.Assign | ast.AnnAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                names = target.elts if isinstance(target, ast.Tuple) else [target]
                for item in names:
                    if isinstance(item, ast.Name):
                        bound[item.id] = statement
        elif isinstance(statement, ast.Import | ast.ImportFrom):
            for alias in statement.names:
                if alias.name != "annotations":
                    bound[alias.asname or alias.name.split(".")[0]] = statement
    return bound
