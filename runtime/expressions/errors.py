"""The one exception of the expression language, and how it points into the source text."""

from __future__ import annotations

from runtime.errors import TextPosition


class ExpressionError(ValueError):
    """A problem with an expression, located at a 1-based `line` and `column` when known;
    `end_column` is the column just after the token or term at fault, when it ends on that line.
    """

    retryable = False

    def __init__(
        self,
        message: str,
        line: int | None = None,
        column: int | None = None,
        hint: str | None = None,
        end_column: int | None = None,
    ) -> None:
        super().__init__(message, line, column, hint, end_column)
        self.message = message
        self.line = line
        self.column = column
        self.hint = hint
        self.end_column = end_column

    @property
    def position(self) -> TextPosition | None:
        """Where it is, for a `Problem`; None when the error is about the whole text."""
        if self.line is None or self.column is None:
            return None
        return TextPosition(self.line, self.column, self.end_column)

    def __str__(self) -> str:
        text = self.message
        if self.line is not None:
            text += f" at {self.line}:{self.column}"
        if self.hint:
            text += f"; {self.hint}"
        return text


def error_at(
    text: str, offset: int, message: str, hint: str | None = None, end: int | None = None
) -> ExpressionError:
    """An ExpressionError for the character at `offset` in `text` (through `end`, if known)."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    same_line = end is not None and end > offset and "\n" not in text[offset:end]
    end_column = column + (end - offset) if same_line else None
    return ExpressionError(message, line, column, hint, end_column)
