"""Which values bound to a DuckDB segment's statements are pipeline parameters.

A run substitutes its parameters' values before it plans, so the SQL the renderer gives holds
them as plain bound values (`CAST(? AS BIGINT)` with 18). A script must bind its option there
instead (`params['min_age']`), never paste the value into the SQL. The values are found by
rendering the segments again with one parameter changed at a time: the statements must read
the same, and the bound values that changed to the new value are that parameter's. A
parameter whose value changes the SQL itself, which nodes run on DuckDB, or that is computed
into another value is refused, naming the node: `--backend pandas` compiles it.

Fields whose placeholders the script computes itself are not looked at here: an input's path
(its files are listed when the script runs) and an output's path and writing options.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from runtime.compile.errors import CompileRefused
from runtime.compile.segments import SegmentSql
from runtime.document.parameters import PLACEHOLDER
from runtime.errors import PipewrightError

CODED = {"input": {"path"}, "output": {"path", "mode", "delimiter", "header", "compression"}}
"""Fields whose placeholders the script's code fills, by operator kind."""
Slot = tuple[str, int, int]
"""(segment id, statement, bound value) of a segment's statements."""
Rendered = dict[tuple[str, ...], SegmentSql | None]
"""Each DuckDB segment, by its nodes: rendered, or None when a run would find it runs on
pandas."""


def parameter_slots(
    base: Rendered,
    members: dict[str, tuple[str, Any]],
    defaults: dict[str, Any],
    render: Callable[[dict[str, Any]], Rendered],
) -> dict[Slot, str]:
    """The code of each bound value that is a parameter (`params['n']`). `base` holds the
    segments rendered with the defaults; `members` each of their nodes' (operator kind, raw
    params); `render(values)` renders the segments with other values."""
    used: dict[str, str] = {}
    for node_id, (kind, raw) in members.items():
        for field, name in placeholders(raw):
            if field in CODED.get(kind, set()):
                continue
            if kind == "input":  # as the pandas emitters refuse it
                raise CompileRefused(
                    f"'{field}' takes the parameter '{name}': a script reads an input's "
                    "files with the options it was compiled with, only the path may vary",
                    node_id,
                )
            used.setdefault(name, node_id)
    slots: dict[Slot, str] = {}
    for name, node_id in used.items():
        value = _other(name, defaults[name], node_id)
        try:
            changed = render({**defaults, name: value})
        except PipewrightError:  # another value makes no plan: the parameter is a path too
            message = f"the parameter '{name}' is more than a value (a path too, say)"
            raise _refused(message, node_id) from None
        for slot, bound in _differing(base, changed, node_id, name):
            if not _same(bound, value):
                raise _refused(f"the parameter '{name}' is computed into a value", node_id)
            slots[slot] = f"params[{name!r}]"
    return slots


def placeholders(raw: Any, field: str = "") -> list[tuple[str, str]]:
    """(top-level field, parameter name) of each placeholder in a node's raw params."""
    if isinstance(raw, str):
        return [(field, name) for name in PLACEHOLDER.findall(raw)]
    if isinstance(raw, dict):
        items = raw.items()
    elif isinstance(raw, list):
        items = ((field, item) for item in raw)
    else:
        return []
    return [
        found
        for key, item in items
        for found in placeholders(item, field or str(key))
        + (placeholders(key, field or str(key)) if isinstance(key, str) else [])
    ]


def _other(name: str, value: Any, node_id: str) -> Any:
    """A value of the parameter's type, of the same sign (a field may take only positive
    numbers), that no document holds by chance."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value - 982_451_653 if value < 0 else value + 982_451_653
    if isinstance(value, float) and math.isfinite(value):
        return value - 7_919.5 if value < 0 else value + 7_919.5
    if isinstance(value, str):
        return value + "\u2063pipewright"
    raise _refused(f"the parameter '{name}' (default {value!r}) has no value to bind", node_id)


def _differing(base, changed, node_id: str, name: str):
    """The slots whose bound value changed, with the value bound there now."""
    if changed.keys() != base.keys() or any(
        (changed[key] is None) != (base[key] is None) for key in base
    ):
        raise _refused(f"the parameter '{name}' changes which nodes run on DuckDB", node_id)
    for key, segment in base.items():
        if segment is None:
            continue
        other = changed[key]
        if _texts(segment) != _texts(other):
            raise _refused(f"the parameter '{name}' changes the query's text", node_id)
        for index, (first, second) in enumerate(
            zip(segment.statements, other.statements, strict=True)
        ):
            for position, (old, new) in enumerate(zip(first.params, second.params, strict=True)):
                if not _same(old, new):
                    yield (segment.segment.id, index, position), new


def _texts(segment: SegmentSql) -> list[tuple]:
    return [(s.kind, s.sql, len(s.params)) for s in segment.statements]


def _same(first: Any, second: Any) -> bool:
    if isinstance(first, float) and isinstance(second, float):
        return first == second or (math.isnan(first) and math.isnan(second))
    return type(first) is type(second) and first == second


def _refused(reason: str, node_id: str) -> CompileRefused:
    return CompileRefused(
        f"{reason}, which a DuckDB query of the script cannot bind; compile with --backend pandas",
        node_id,
    )
