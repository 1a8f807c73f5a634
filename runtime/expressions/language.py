"""The expression language as it is described to people: its functions (from `FUNCTIONS`,
the one registry), operators and keywords, for the editor's completion (through
`GET /api/expressions`) and for the function table of docs/expressions.md.

`python -m runtime.expressions.language docs/expressions.md` rewrites that table; a test fails
when the page and the registry disagree.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .functions import FUNCTIONS
from .lexer import KEYWORDS

DATE_SYNTAX: tuple[tuple[str, str, str], ...] = (
    ("date", "date '2024-01-31'", "A date literal, the same as `date('2024-01-31')`."),
    ("timestamp", "timestamp '2024-01-31 10:00:00'", "A datetime literal."),
    (
        "interval",
        "d + interval '90' day",
        "A span of days, weeks, months, quarters or years (hours, minutes, seconds for "
        "datetimes) to add to or subtract from a date; month steps clamp to the month's end.",
    ),
    (
        "extract",
        "extract(year from d)",
        "A part of a date: year, quarter, month, week, day, dayofweek, dayofyear "
        "(and hour, minute, second of a datetime); the same as `year(d)`.",
    ),
)
"""The SQL-style date syntax (runtime/expressions/date_syntax.py)."""

OPERATORS: tuple[tuple[str, str, str], ...] = (
    ("and", "a and b", "True where both are true; three-valued with nulls."),
    ("or", "a or b", "True where either is true; three-valued with nulls."),
    ("not", "not a", "True where a is false."),
    ("=", "a = b", "Equal (also `==`); null when either side is null."),
    ("!=", "a != b", "Not equal (also `<>`)."),
    ("<", "a < b", "Less than; also `<=`, `>`, `>=`."),
    ("is null", "a is null", "Whether a value is missing; `is not null` for the opposite."),
    ("in", "a in (x, y)", "Whether a equals one of the items; `not in` for the opposite."),
    ("between", "a between low and high", "low <= a and a <= high, both ends included."),
    ("like", "a like 'pat%'", "Whether the text matches: `%` any run, `_` one character."),
    ("ilike", "a ilike 'pat%'", "`like` ignoring letter case; `not like`, `not ilike` too."),
    ("+", "a + b", "Adds numbers, or joins two strings."),
    ("-", "a - b", "Subtracts; `-a` negates."),
    ("*", "a * b", "Multiplies."),
    ("/", "a / b", "Divides, always giving a float; null when b is 0."),
    ("%", "a % b", "The remainder, with the sign of b; null when b is 0."),
    ("**", "a ** b", "a to the power b, a float; binds right to left."),
    *DATE_SYNTAX,
    (
        "case",
        "case when c then a [when …] [else b] end",
        "The result of the first true condition, else `else` (or null).",
    ),
)
"""(name, usage, help) of each operator, loosest binding first (then the date syntax). A
one-word name the editor does not know as a function is offered as a keyword."""

CONSTANTS: tuple[tuple[str, str], ...] = (
    ("true", "The boolean true."),
    ("false", "The boolean false."),
    ("null", "A missing value, which fits any type."),
)

TABLE_START = "<!-- functions: written by python -m runtime.expressions.language -->"
TABLE_END = "<!-- end of functions -->"


def language_json() -> dict:
    """The functions, operators and constants, as `GET /api/expressions` serves them."""
    return {
        "functions": [
            {
                "name": function.name,
                "usage": function.usage,
                "returns": function.returns,
                "help": function.help,
            }
            for function in FUNCTIONS.values()
        ],
        "operators": [
            {"name": name, "usage": usage, "help": text} for name, usage, text in OPERATORS
        ],
        "constants": [{"name": name, "help": text} for name, text in CONSTANTS],
        "keywords": sorted(KEYWORDS),
    }


def function_table() -> str:
    """The Markdown table of every function, in registry order."""
    rows = [
        f"| `{function.usage}` | {function.returns} | {function.help} |"
        for function in FUNCTIONS.values()
    ]
    return "\n".join(["| Function | Gives | What it does |", "|---|---|---|", *rows])


def with_function_table(page: str) -> str:
    """`page` with the text between its table markers replaced by `function_table()`."""
    before, start, rest = page.partition(TABLE_START)
    _, end, after = rest.partition(TABLE_END)
    if not start or not end:
        raise ValueError(f"the page has no {TABLE_START} ... {TABLE_END} markers")
    return f"{before}{TABLE_START}\n{function_table()}\n{TABLE_END}{after}"


if __name__ == "__main__":
    page = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/expressions.md")
    page.write_text(with_function_table(page.read_text(encoding="utf-8")), encoding="utf-8")
