"""The operator registry: built-ins plus third-party operators found through entry points.

A package extends Pipewright by publishing an `Operator` subclass (or a list of them) in the
entry-point group `pipewright.operators`; `pip install` is all a user does. A plugin that fails
to load, or that reuses a taken name, is reported once as a warning and left out, so one
broken package never takes the whole catalog down.

The installed distributions are scanned for plugins only when a name is not a built-in's or the
whole catalog is asked for: the scan reads every distribution's metadata (10 to 15 ms, about
what planning a small pipeline costs), and a pipeline of built-ins never needs it.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Iterable
from functools import lru_cache

from runtime.operators.contract import KINDS, Operator

ENTRY_POINT_GROUP = "pipewright.operators"

log = logging.getLogger(__name__)


class Registry:
    """Operators by name; `lazy` ones (name → "module:Class") are imported on first use."""

    def __init__(
        self,
        operators: Iterable[type[Operator]] = (),
        lazy: dict[str, str] | None = None,
        plugins: str | None = None,
    ):
        self._operators: dict[str, Operator] = {}
        self._lazy: dict[str, str] = dict(lazy or {})
        self._plugins = plugins
        """The entry-point group still to scan, on the first name no operator has."""
        self._lock = threading.Lock()
        self._scanning = threading.Lock()
        for operator_class in operators:
            self.register(operator_class)

    def register(self, operator_class: type[Operator]) -> None:
        """Add an operator class; its name must be new and its declaration complete."""
        if not (isinstance(operator_class, type) and issubclass(operator_class, Operator)):
            raise TypeError(
                f"{operator_class!r} is not a subclass of runtime.operators.contract.Operator"
            )
        for attribute in ("name", "kind", "title"):
            if not getattr(operator_class, attribute, None):
                raise TypeError(f"operator {operator_class.__name__} does not set `{attribute}`")
        if operator_class.kind not in KINDS:
            raise TypeError(f"operator {operator_class.name}: kind must be one of {KINDS}")
        if operator_class.name in self._operators or operator_class.name in self._lazy:
            raise ValueError(f"an operator named '{operator_class.name}' is already registered")
        self._operators[operator_class.name] = operator_class()

    def get(self, name: str) -> Operator | None:
        if name not in self:
            return None
        if name in self._lazy:
            self._import(name)
        return self._operators.get(name)

    def __contains__(self, name: object) -> bool:
        if name in self._operators or name in self._lazy:
            return True
        self._scan_plugins()
        return name in self._operators or name in self._lazy

    def names(self) -> list[str]:
        self._scan_plugins()
        return sorted({*self._operators, *self._lazy})

    def catalog(self) -> list[dict]:
        """Every operator's catalog entry, sorted by kind then name."""
        self._scan_plugins()
        for name in list(self._lazy):
            self._import(name)
        order = {kind: index for index, kind in enumerate(KINDS)}
        operators = sorted(self._operators.values(), key=lambda op: (order[op.kind], op.name))
        return [operator.describe() for operator in operators]

    def _import(self, name: str) -> None:
        with self._lock:
            target = self._lazy.get(name)
            if target is None:
                return  # another thread imported it meanwhile
            module_name, _, class_name = target.partition(":")
            operator_class = getattr(importlib.import_module(module_name), class_name)
            if operator_class.name != name:
                raise TypeError(f"{target} is named '{operator_class.name}', not '{name}'")
            del self._lazy[name]
            self.register(operator_class)

    def _scan_plugins(self) -> None:
        if self._plugins is None:
            return
        with self._scanning:  # a second thread waits for the plugins the first one loads
            if self._plugins is not None:
                self.load_entry_points(self._plugins)
                self._plugins = None

    def load_entry_points(self, group: str = ENTRY_POINT_GROUP) -> None:
        """Register the operators that installed distributions publish under `group`."""
        from importlib.metadata import entry_points  # only when plugins are looked for

        for entry_point in entry_points(group=group):
            try:
                loaded = entry_point.load()
                classes = loaded if isinstance(loaded, list | tuple) else [loaded]
                for operator_class in classes:
                    self.register(operator_class)
            except Exception as error:  # a broken plugin must not break the catalog
                log.warning("operator plugin %r was not loaded: %s", entry_point.value, error)


@lru_cache(maxsize=1)
def default_registry() -> Registry:
    """The built-in operators and every installed plugin, loaded once per process (the plugins
    when first needed)."""
    from runtime.operators import BUILTIN_OPERATORS

    return Registry(lazy=BUILTIN_OPERATORS, plugins=ENTRY_POINT_GROUP)
