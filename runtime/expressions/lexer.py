"""Tokens of the expression language, and `literal()`, the inverse of reading a literal.

The lexer turns text into a flat list of tokens; it knows nothing of grammar or types.
`literal()` lives here because its escaping must mirror the unescaping below exactly.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

from .errors import ExpressionError, error_at

MAX_LENGTH = 10_000
"""The longest expression text accepted, in characters."""

MAX_INTEGER = 2**63 - 1
"""Integer literals are 64-bit: their magnitude may not exceed this."""

KEYWORDS = frozenset({"and", "or", "not", "in", "is", "null", "true", "false", "between"})
KEYWORDS |= {"like", "ilike", "case", "when", "then", "else", "end"}  # patterns, conditionals

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
    | (?P<number>(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][+-]?[0-9]+)?)
    | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
    | (?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
    | (?P<column>`(?:[^`\\]|\\.)*`)
    | (?P<op>\*\*|==|!=|<>|<=|>=|[-+*/%=<>(),])
    """,
    re.VERBOSE | re.DOTALL,
)
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_UNESCAPES = {"\\": "\\", "'": "'", '"': '"', "`": "`", "n": "\n", "r": "\r", "t": "\t"}
_ESCAPES = str.maketrans({"\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t"})
_SURROGATE = re.compile("[\ud800-\udfff]")


class Token(NamedTuple):
    """One token: its kind, its value, and where its source `text` sits (`start`..`end`)."""

    kind: str  # number, string, name, column, keyword, op or end
    value: object
    start: int
    end: int
    text: str

    def shown(self) -> str:
        """How the token is named in an error message."""
        if self.kind == "end":
            return "end of expression"
        text = printable(shorten(self.text))
        return text if self.kind == "string" else f"'{text}'"


def tokenize(text: str) -> list[Token]:
    """Split expression text into tokens, ending with an `end` token."""
    if not isinstance(text, str):
        raise ExpressionError(f"an expression must be text, not {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(
            f"expression is too long ({len(text)} characters)", 1, 1, f"the limit is {MAX_LENGTH}"
        )
    surrogate = _SURROGATE.search(text)
    if surrogate:
        raise error_at(text, surrogate.start(), "invalid character in expression text")
    tokens = []
    offset = 0
    while offset < len(text):
        match = _TOKEN.match(text, offset)
        if match is None:
            raise _bad_character(text, offset)
        if match.lastgroup != "space":
            tokens.append(_token(match, text))
        offset = match.end()
    tokens.append(Token("end", None, len(text), len(text), ""))
    return tokens


def _token(match: re.Match, text: str) -> Token:
    kind, raw, start = match.lastgroup, match.group(), match.start()
    if kind == "number":
        value: object = _number(raw, start, text)
    elif kind in ("string", "column"):
        value = _ESCAPE.sub(lambda escape: _unescape(escape, start, text), raw[1:-1])
        if kind == "column" and not value:
            raise error_at(text, start, "empty column name", end=match.end())
    elif kind == "name" and raw.lower() in KEYWORDS:
        kind, value = "keyword", raw.lower()
    else:
        value = raw
    return Token(kind, value, start, match.end(), raw)


def _number(raw: str, start: int, text: str) -> int | float:
    if any(mark in raw for mark in ".eE"):
        value: int | float = float(raw)
        in_range = math.isfinite(value)
    else:
        in_range = len(raw.lstrip("0")) <= len(str(MAX_INTEGER)) and int(raw) <= MAX_INTEGER
        value = int(raw) if in_range else 0
    if not in_range:
        raise error_at(text, start, f"number {shorten(raw)} is out of range", end=start + len(raw))
    return value


def _unescape(escape: re.Match, start: int, text: str) -> str:
    char = escape.group(1)
    if char not in _UNESCAPES:
        raise error_at(
            text,
            start + 1 + escape.start(),
            f"invalid escape '\\{printable(char)}'",
            "use '\\\\' for a backslash",
            end=start + 1 + escape.end(),
        )
    return _UNESCAPES[char]


def _bad_character(text: str, offset: int) -> ExpressionError:
    char = text[offset]
    if char in "'\"":
        return error_at(text, offset, "unterminated string")
    if char == "`":
        return error_at(text, offset, "unterminated column name")
    return error_at(text, offset, f"unexpected character '{printable(char)}'", end=offset + 1)


def printable(text: str) -> str:
    """`text` with control and other unprintable characters escaped, for messages."""
    return text if text.isprintable() else repr(text)[1:-1]


def shorten(text: str, limit: int = 40) -> str:
    """`text`, cut to `limit` characters with an ellipsis, for messages."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def literal(value: object) -> str:
    """Expression text that reads back as exactly `value` (str, bool, int, float or None)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _number_literal(value)
    if isinstance(value, str):
        return "'" + value.translate(_ESCAPES) + "'"
    raise ExpressionError(
        f"a parameter of type {type(value).__name__} cannot be used in an expression"
    )


def _number_literal(value: int | float) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        raise ExpressionError(f"the parameter value {value} cannot be used in an expression")
    if isinstance(value, int) and abs(value) > MAX_INTEGER:
        raise ExpressionError("an integer parameter beyond 64 bits cannot be used in an expression")
    text = repr(value)
    return f"({text})" if text.startswith("-") else text
