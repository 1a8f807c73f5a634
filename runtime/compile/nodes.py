"""What an operator's emitter is given and fills: one node's params, inputs and code lines.

An emitter reads the node's validated params (`fixed`), or, where a field takes a pipeline
parameter, the code that gives its value when the script runs (`value`); it writes statements
with `line` and names the runtime helpers it calls with `carry`. Every value reaches code
through `literal` (`repr()` and friends), never pasted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from runtime.document import parameters as runtime_parameters
from runtime.document.parameters import PLACEHOLDER
from runtime.tables.schema import Schema

from .errors import CompileRefused
from .expressions import ExpressionCode, expression_code
from .literals import literal


@dataclass
class NodeCode:
    """One node being compiled."""

    id: str
    operator: str
    params: BaseModel
    raw: dict
    parameters: dict[str, Any]
    inputs: dict[str, Any]
    """The variable holding each input port's frame (a list for a `many` port)."""
    schemas: dict[str, Any]
    """Each input port's schema (a list for a `many` port), as inference predicts it."""
    outputs: dict[str, str]
    columns: set[str] | None = None
    """Of the `out` port, the columns anything downstream reads (None: all): column pruning,
    as in a run (an input reads only these, a transform computes only these)."""
    lines: list[str] = field(default_factory=list)
    helpers: set = field(default_factory=set)
    imports: set[str] = field(default_factory=set)
    handled: set[str] = field(default_factory=set)
    """Fields holding placeholders that the code computes from the script's options."""

    def line(self, text: str = "") -> None:
        self.lines.append(text)

    def carry(self, *functions: object) -> None:
        self.helpers.update(functions)

    def fixed(self, name: str) -> Any:
        """A param's validated value (refused when it holds a placeholder: see `finish`)."""
        return getattr(self.params, name)

    def value(self, name: str) -> str:
        """Code giving a top-level param's value, from the script's options where it holds a
        placeholder (`${n}` is the option itself, `out/${day}.csv` a text built from it)."""
        return self.value_at(name, self.raw.get(name), getattr(self.params, name))

    def value_at(self, path: str, raw: Any, validated: Any) -> str:
        """`value` for the param at `path` (`params.min_age`), given its raw text."""
        if not isinstance(raw, str) or "${" not in raw:
            return literal(validated)
        self.handled.add(path)
        whole = PLACEHOLDER.fullmatch(raw)
        if whole:
            return f"params[{whole[1]!r}]"
        self.carry(runtime_parameters.placeholder_text)
        parts, end = [], 0
        for match in PLACEHOLDER.finditer(raw):
            if match.start() > end:
                parts.append(repr(raw[end : match.start()]))
            parts.append(f"placeholder_text(params[{match[1]!r}])")
            end = match.end()
        if end < len(raw):
            parts.append(repr(raw[end:]))
        return " + ".join(parts)

    def expression(self, path: str, raw_text: str, schema: Schema) -> ExpressionCode:
        """The code of the expression at `path` (raw text, placeholders and all)."""
        try:
            compiled = expression_code(raw_text, schema, self.parameters)
        except CompileRefused as error:
            raise CompileRefused(f"{path}: {error.message}", self.id) from error
        self.handled.add(path)
        self.helpers |= compiled.helpers
        return compiled

    def finish(self) -> None:
        """Refuse a placeholder in a field the code took as fixed."""
        for path in placeholder_paths(self.raw):
            if path not in self.handled:
                raise CompileRefused(
                    f"'{path}' takes a pipeline parameter, which compiling supports in "
                    "expressions and in single-valued fields such as a path or a count",
                    self.id,
                )


def placeholder_paths(raw: Any, prefix: str = "") -> list[str]:
    """Where `${...}` placeholders sit in raw params: `path`, `mappings[0].expression`."""
    if isinstance(raw, str):
        return [prefix] if PLACEHOLDER.search(raw) else []
    if isinstance(raw, dict):
        found = []
        for key, item in raw.items():
            if isinstance(key, str) and PLACEHOLDER.search(key):
                found.append(f"{prefix}.{key}" if prefix else key)
            found += placeholder_paths(item, f"{prefix}.{key}" if prefix else str(key))
        return found
    if isinstance(raw, list):
        return [
            p
            for index, item in enumerate(raw)
            for p in placeholder_paths(item, f"{prefix}[{index}]")
        ]
    return []
