"""The SQL-style date syntax: `date '1998-12-01'`, `timestamp '...'`, `interval '90' day` and
`extract(year from x)`, read by the parser through `prefix()`.

None of these words is reserved: each is only special before what completes it (a string, an
amount, `(`), so a column may still be called `date` or `interval`. A date or timestamp literal
is the call `date('...')` / `timestamp('...')`, and `extract(part from x)` is the call
`part(x)`, so everything after parsing (types, pandas, SQL, compiled scripts) knows only calls.
An interval is an `Interval` node, which is only a value in a few places: `check_intervals`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .errors import error_at
from .nodes import Binary, Call, Interval, Literal, Node, children, walk

if TYPE_CHECKING:
    from .lexer import Token

DATE_UNITS = ("day", "week", "month", "quarter", "year")
"""What a date moves by or is truncated to."""
TIME_UNITS = ("hour", "minute", "second")
"""What only a datetime moves by."""
UNITS = {unit: unit for unit in (*DATE_UNITS, *TIME_UNITS)} | {
    f"{unit}s": unit for unit in (*DATE_UNITS, *TIME_UNITS)
}
"""An interval's unit as written (singular or plural) → its singular."""
PARTS = ("year", "quarter", "month", "week", "day", "dayofweek", "dayofyear")
PARTS += TIME_UNITS
"""What `extract(part from x)` takes: each is also a function, `part(x)`."""
MAX_AMOUNT = 999_999_999
"""The largest interval amount (9 digits): far beyond any date, and within DuckDB's integers."""

_AMOUNT = re.compile(r"\s*([+-]?[0-9]+)\s*")
_UNIT_LIST = ", ".join(DATE_UNITS + TIME_UNITS)


def prefix(parser, token: Token) -> Node | None:
    """The date syntax starting at `token` (already read), or None when it starts none."""
    word = token.text.lower() if token.kind in ("name", "keyword") else ""
    following = parser.peek()
    if word in ("date", "timestamp") and following.kind == "string":
        parser.advance()
        text = Literal(following.value, span=(following.start, following.end))
        return Call(word, (text,), span=(token.start, following.end))
    if word == "interval" and (following.kind in ("string", "number") or _negative(parser)):
        return _interval(parser, token)
    if word == "extract" and _is_open(following):
        return _extract(parser, token)
    return None


def _interval(parser, start: Token) -> Interval:
    negative = _is_minus(parser.peek())
    if negative:
        parser.advance()
    amount_token = parser.advance()
    amount = _amount(parser.text, amount_token)
    unit_token = parser.advance()
    unit = UNITS.get(unit_token.text.lower()) if unit_token.kind in ("name", "keyword") else None
    if unit is None:
        raise error_at(
            parser.text,
            unit_token.start,
            f"expected an interval unit but got {unit_token.shown()}",
            f"one of {_UNIT_LIST} (or their plurals)",
            unit_token.end,
        )
    return Interval(-amount if negative else amount, unit, span=(start.start, unit_token.end))


def _amount(text: str, token: Token) -> int:
    value = token.value
    if token.kind == "string":
        match = _AMOUNT.fullmatch(value)
        value = int(match.group(1)) if match else None
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > MAX_AMOUNT:
        raise error_at(
            text,
            token.start,
            f"an interval's amount must be a whole number, not {token.shown()}",
            f"e.g. interval '90' day; at most {MAX_AMOUNT}",
            token.end,
        )
    return value


def _extract(parser, start: Token) -> Call:
    parser.advance()  # the "("
    part_token = parser.advance()
    part = part_token.text.lower() if part_token.kind in ("name", "keyword") else ""
    if part not in PARTS:
        raise error_at(
            parser.text,
            part_token.start,
            f"extract() cannot take {part_token.shown()}",
            f"one of {', '.join(PARTS)}",
            part_token.end,
        )
    keyword = parser.advance()
    if keyword.kind not in ("name", "keyword") or keyword.text.lower() != "from":
        raise parser.unexpected(keyword, f"expected 'from' after extract({part}")
    operand = parser.expression()
    closing = parser.expect(")", "expected ')'")
    return Call(part, (operand,), span=(start.start, closing.end))


def _negative(parser) -> bool:
    """Whether `- 3 day` follows: `interval - 1` stays a column named interval minus 1."""
    ahead = parser.tokens[parser.index : parser.index + 3]
    return (
        len(ahead) == 3
        and _is_minus(ahead[0])
        and ahead[1].kind == "number"
        and ahead[2].kind in ("name", "keyword")
        and ahead[2].text.lower() in UNITS
    )


def _is_minus(token: Token) -> bool:
    return token.kind == "op" and token.value == "-"


def _is_open(token: Token) -> bool:
    return token.kind == "op" and token.value == "("


def check_intervals(text: str, root: Node) -> None:
    """Refuse an interval anywhere but beside `+`/`-` or as date_add()'s second argument: it
    is a span of time, not a value a column could hold."""
    allowed: set[int] = set()
    for node in walk(root):
        if isinstance(node, Binary) and node.op in ("+", "-"):
            allowed.update(id(child) for child in children(node))
        elif isinstance(node, Call) and node.name == "date_add" and len(node.args) == 2:
            allowed.add(id(node.args[1]))
    for node in walk(root):
        if isinstance(node, Interval) and id(node) not in allowed:
            raise error_at(
                text,
                node.span[0],
                "an interval is not a value on its own",
                "add it to or subtract it from a date or datetime (d + interval '1' day), "
                "or pass it to date_add()",
                node.span[1],
            )
