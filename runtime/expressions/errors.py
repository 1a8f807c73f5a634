"""The one exception of the expression language, and how it points into the source text."""

from __future__ import annotations


class ExpressionError(ValueError):
    """A problem with an expression, located at a 1-based `line` and `column` when known."""

    retryable = False

    def __init__(
        self,
        message: str,
        line: int | None = None,
        column: int | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, line, column, hint)
        self.message = message
        self.line = line
        self.column = column
        self.hint = hint

    def __str__(self) -> str:
        text = self.message
        if self.line is not None:
            text += f" at {self.line}:{self.column}"
        if self.hint:
            text += f"; {self.hint}"
        return text


def error_at(text: str, offset: int, message: str, hint: str | None = None) -> ExpressionError:
    """An ExpressionError for the character at `offset` in `text`."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return ExpressionError(message, line, column, hint)
