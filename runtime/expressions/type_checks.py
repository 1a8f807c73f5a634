"""The type checks of expressions, shared by the parser, the compiler, the symbols and the
functions, and how they word their errors.

The rules: integers, floats and decimals mix freely (a float makes the result a float, else a
decimal makes it a decimal: `decimals.py`); every other type only meets itself; a bare `null`
fits any type.
"""

from __future__ import annotations

from collections.abc import Sequence

from runtime.lazy import np

from .errors import ExpressionError, error_at
from .lexer import printable, shorten
from .nodes import Column, Literal, Node
from .sizes import oversize
from .values import NULL, NUMBERS, Compiled, resolve


class Checker:
    """Checks types and builds errors that quote the expression text."""

    def __init__(self, text: str) -> None:
        self.text = text

    def error(self, node: Node, message: str, hint: str | None = None) -> ExpressionError:
        """An ExpressionError located at `node`'s text."""
        return error_at(self.text, node.span[0], message, hint, node.span[1])

    def bound(self, node: Node, what: str, sizes: np.ndarray) -> None:
        """Refuse to build a text result of `sizes` bytes per row when it is too large."""
        problem = oversize(int(sizes.sum()), int(sizes.max(initial=0)))
        if problem is not None:
            raise self.error(node, f"{what}: {problem}")

    def describe(self, node: Node) -> str:
        """How `node` is quoted in a message: `'age'`, `'abc'`, `'price * 2'`."""
        if isinstance(node, Column):
            return f"'{printable(shorten(node.name))}'"
        source = printable(shorten(self.text[node.span[0] : node.span[1]]))
        is_text = isinstance(node, Literal) and isinstance(node.value, str)
        return source if is_text else f"'{source}'"

    def expect(self, arg: Compiled, types: Sequence[str], what: str, context: str) -> Compiled:
        """`arg` if its type is one of `types` (a null takes the first), else an error."""
        if arg.type == NULL:
            return resolve(arg, types[0])
        if arg.type not in types:
            raise self.error(
                arg.node, f"{context} expects {what} but {self.describe(arg.node)} is {arg.type}"
            )
        return arg

    def common_type(self, args: Sequence[Compiled], hint: str) -> str:
        """The type all `args` share (integer and float make float; NULL if all are null)."""
        known = [arg for arg in args if arg.type != NULL]
        if not known:
            return NULL
        for arg in known[1:]:
            if not _compatible(known[0].type, arg.type):
                raise self.mismatch(known[0], arg, hint)
        types = {arg.type for arg in known}
        if len(types) > 1:  # numbers: a float makes floats, else a decimal makes decimals
            return "float" if "float" in types else "decimal"
        return known[0].type

    def mismatch(self, first: Compiled, second: Compiled, hint: str) -> ExpressionError:
        """`'age' is integer but 'abc' is string`, located at the second operand."""
        return self.error(
            second.node,
            f"{self.describe(first.node)} is {first.type} "
            f"but {self.describe(second.node)} is {second.type}",
            hint,
        )


def _compatible(first: str, second: str) -> bool:
    return first == second or (first in NUMBERS and second in NUMBERS)
