"""How each built-in operator becomes code: one small emitter per operator, by name.

An emitter is `emit(node: NodeCode) -> None`: it writes the statements that compute the
node's output variables from its input variables, as the operator's `run` does. Emitters sit
beside each other by operator family (files, columns, rows, combine, aggregate, ...), the way
the operators do in `runtime/operators/`. An operator without one is refused by name.
"""

from __future__ import annotations

from collections.abc import Callable

from runtime.compile.nodes import NodeCode

Emitter = Callable[[NodeCode], None]
EMITTERS: dict[str, Emitter] = {}


def emits(*names: str) -> Callable[[Emitter], Emitter]:
    """Register the decorated function as the emitter of the operators `names`."""

    def register(emitter: Emitter) -> Emitter:
        for name in names:
            EMITTERS[name] = emitter
        return emitter

    return register


def emitter_for(name: str) -> Emitter | None:
    """The emitter of the operator `name`, if it has one (all families loaded on first use)."""
    from runtime.compile.operators import (  # noqa: F401
        aggregate,
        broadcast,
        columns,
        combine,
        files,
        reshape,
        route,
        rows,
        sql,
        subpipelines,
        validate,
        window,
    )

    return EMITTERS.get(name)
