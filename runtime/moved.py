"""Import paths that moved when the engine was laid out by stage, kept working for one release.

Plugins and scripts written against the flat layout (`from runtime.operator import Operator`,
`from runtime.schema import Schema`, `from runtime.executor import execute`) still import: the
old name gives the module at its new place, the same object, with a DeprecationWarning that
names where it lives now. New code imports from `runtime` itself or the module's new path.
"""

from __future__ import annotations

import importlib
import sys
import warnings

OLD_PATHS: dict[str, str] = {
    "runtime.operator": "runtime.operators.contract",
    "runtime.contract": "runtime.operators.contract",
    "runtime.context": "runtime.operators.context",
    "runtime.fields": "runtime.document.fields",
    "runtime.lifecycle": "runtime.operators.lifecycle",
    "runtime.registry": "runtime.operators.registry",
    "runtime.column_names": "runtime.operators.column_names",
    "runtime.file_checks": "runtime.operators.file_checks",
    "runtime.schema": "runtime.tables.schema",
    "runtime.casting": "runtime.tables.casting",
    "runtime.frames": "runtime.tables.frames",
    "runtime.spec": "runtime.document.spec",
    "runtime.parameters": "runtime.document.parameters",
    "runtime.problems": "runtime.document.problems",
    "runtime.graph": "runtime.checks.analysis",
    "runtime.inference": "runtime.checks.inference",
    "runtime.executor": "runtime.execution.executor",
    "runtime.events": "runtime.execution.events",
    "runtime.statuses": "runtime.execution.statuses",
    "runtime.paths": "runtime.io.paths",
    "runtime.sql_connections": "runtime.io.sql.connections",
}
"""Old module path → where it lives now: the paths docs/plugins.md published, and the modules a
plugin's operator most likely imported beside them."""


class _OldPathFinder:
    """Answers an old path with the module at its new one (sys.modules holds it under both).

    A meta path finder and loader by its methods, not by importlib.abc's base classes, whose
    import (importlib.resources and more) every command would otherwise pay."""

    def __init__(self) -> None:
        self.real_specs: dict[str, object] = {}

    def find_spec(self, name, path=None, target=None):
        if name not in OLD_PATHS:
            return None
        import importlib.util

        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec):
        new = OLD_PATHS[spec.name]
        warnings.warn(
            f"{spec.name} moved to {new}: import from there, or from runtime",
            DeprecationWarning,
            stacklevel=2,
        )
        module = importlib.import_module(new)
        self.real_specs[new] = module.__spec__
        return module

    def exec_module(self, module) -> None:
        # The import system stamps the old name's spec on the module; it is still the new one.
        module.__spec__ = self.real_specs[module.__name__]


def install_old_paths() -> None:
    """Let the old paths import (once per process; the runtime package calls it)."""
    if not any(isinstance(finder, _OldPathFinder) for finder in sys.meta_path):
        sys.meta_path.append(_OldPathFinder())
