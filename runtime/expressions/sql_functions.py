"""DuckDB SQL for the expression language's functions, matching `function_builders.py` exactly.

`lower_call` gets a checked call and its arguments already lowered. A function whose DuckDB
result can differ from pandas' raises NotLowerable with the reason. The choices, tested
against pandas 3 and DuckDB 2.0 (docs/expressions.md, "Running on DuckDB"):

* `len` and `substr` agree as they are: both count code points. `strip` names pandas'
  whitespace, as DuckDB's `trim` only removes spaces. `upper` and `lower` stay on pandas:
  pyarrow and DuckDB map case from different Unicode versions (75 letters differ).
* `round(x)` halves to even in both (`round_even`); with digits, numpy and DuckDB round
  different numbers (`round(2.675, 2)`), so only `round(x)` and integers kept whole lower.
* `abs` of an integer wraps like numpy: `abs` of the smallest integer is itself.
* Decimals round exactly in both (`round_even` with any digits), and keep DuckDB's types.
"""

from __future__ import annotations

from collections.abc import Callable

from runtime.errors import NotLowerable

from .nodes import Call, Literal, Node
from .sql_dates import DATE_FUNCTIONS
from .sql_parts import NULL_SQL, Sql, cast, common_type, huge, joined, param, sql, wrapped
from .sql_patterns import lower_nullif
from .values import NULL

_WHITESPACE = "".join(chr(code) for code in range(0x3001) if chr(code).isspace())
"""What pandas' `str.strip()` removes: Python's whitespace (none lies above U+3000)."""
_DATE_TEXT = r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ].*)?"
"""`function_builders._DATE_TEXT` without its look-ahead for year 0000 (RE2 has none; tested
apart)."""
_MAX_POSITION = 4294967295
"""DuckDB refuses larger substring positions; no DuckDB text is this long, so clamp to it."""


def lower_call(node: Call, args: list[Sql]) -> Sql:
    """The SQL for a call of a whitelisted function on lowered `args`."""
    return _FUNCTIONS[node.name](node, *args)


def _setting(node: Node, what: str) -> object:
    """The value of a constant argument that shapes the SQL: a literal, or refused."""
    if not isinstance(node, Literal):
        raise NotLowerable(f"{what} runs on DuckDB only when written as a plain value")
    return node.value


def _text_function(name: str, type: str = "string") -> Callable:
    """A function of strings that DuckDB computes as pandas does, such as upper()."""

    def build(node: Call, *texts: Sql) -> Sql:
        args = [cast(text, "string") for text in texts]
        return sql(f"{name}(", *joined(", ", args), ")", type=type)

    return build


def _case(node: Call, text: Sql) -> Sql:
    raise NotLowerable(
        f"{node.name}() stays on pandas: pyarrow and DuckDB map letter case from different "
        "Unicode versions, so some letters would change differently"
    )


def _strip(node: Call, text: Sql) -> Sql:
    whitespace = param(_WHITESPACE, "string")
    return sql("trim(", cast(text, "string"), ", ", whitespace, ")", type="string")


def _replace(node: Call, text: Sql, old: Sql, new: Sql) -> Sql:
    if old.type != NULL and _setting(node.args[1], "replace()'s old text") == "":
        raise NotLowerable(
            "replace() with an empty old text inserts the new text between characters in "
            "pandas and changes nothing in DuckDB"
        )
    return _text_function("replace")(node, text, old, new)


def _substr(node: Call, text: Sql, start: Sql, length: Sql | None = None) -> Sql:
    positions = [start] if length is None else [start, length]
    if any(position.type == NULL for position in positions):
        return NULL_SQL
    clamped = [
        param(min(_setting(arg, "substr()'s start and length"), _MAX_POSITION), "integer")
        for arg in node.args[1:]
    ]
    return sql("substring(", cast(text, "string"), ", ", *joined(", ", clamped), ")", type="string")


def _abs(node: Call, number: Sql) -> Sql:
    number = cast(number, "integer")
    if number.type == "integer":
        return wrapped("abs(", huge(number), ")")
    return sql("abs(", number, ")", type=number.type)


def _whole(name: str) -> Callable:
    """floor() or ceil(): integers unchanged, floats rounded to a whole float, decimals to
    scale 0 (DuckDB's type, as `decimals.whole` gives it)."""

    def build(node: Call, number: Sql) -> Sql:
        number = cast(number, "integer")
        whole = sql(f"{name}(", number, ")", type=number.type)
        return number if number.type == "integer" else whole

    return build


def _round(node: Call, number: Sql, digits: Sql | None = None) -> Sql:
    number = cast(number, "integer")
    if digits is not None and digits.type == NULL:
        return cast(NULL_SQL, number.type)
    places = 0 if digits is None else _setting(node.args[1], "round()'s digits")
    if number.type == "integer":
        if places < 0:
            raise NotLowerable(
                "round() of an integer to tens or more goes through floats in pandas, "
                "losing digits of large integers, and not in DuckDB"
            )
        return number
    if number.type == "decimal":  # exact in both, halves to even, DuckDB's type in both
        return sql("round_even(", number, f", {int(places)})", type="decimal")
    if places != 0:
        raise NotLowerable(
            "round() with digits rounds different numbers up in pandas and in DuckDB "
            "(numpy scales by a power of ten first), so it runs on pandas"
        )
    return sql("round_even(", number, ", 0)", type="float")


def _date(node: Call, value: Sql) -> Sql:
    if value.type == "date":
        return value
    text = cast(value, "string")
    return sql(
        "CASE WHEN regexp_full_match(", text, ", ", param(_DATE_TEXT, "string"),
        ") AND NOT starts_with(", text, ", ", param("0000", "string"),
        ") THEN TRY_CAST(substring(", text, ", 1, 10) AS DATE) END",
        type="date",
    )  # fmt: skip


def _date_part(name: str) -> Callable:
    def build(node: Call, value: Sql) -> Sql:
        return sql(f"{name}(", cast(value, "date"), ")", type="integer")

    return build


def _coalesce(node: Call, *values: Sql) -> Sql:
    type = common_type(*values)
    if type == NULL:
        return NULL_SQL
    args = [cast(value, type) for value in values]
    return sql("COALESCE(", *joined(", ", args), ")", type=type)


def _if(node: Call, condition: Sql, then: Sql, otherwise: Sql) -> Sql:
    type = common_type(then, otherwise)
    if type == NULL:
        return NULL_SQL
    return sql(
        "CASE WHEN ", cast(condition, "boolean"), " THEN ", cast(then, type),
        " ELSE ", cast(otherwise, type), " END",
        type=type,
    )  # fmt: skip


_FUNCTIONS: dict[str, Callable[..., Sql]] = {
    "upper": _case,
    "lower": _case,
    "strip": _strip,
    "len": _text_function("length", "integer"),
    "contains": _text_function("contains", "boolean"),
    "startswith": _text_function("starts_with", "boolean"),
    "endswith": _text_function("ends_with", "boolean"),
    "replace": _replace,
    "concat": _text_function("concat"),
    "substr": _substr,
    "substring": _substr,
    "abs": _abs,
    "round": _round,
    "floor": _whole("floor"),
    "ceil": _whole("ceil"),
    "date": _date,
    "year": _date_part("year"),
    "month": _date_part("month"),
    "day": _date_part("day"),
    "coalesce": _coalesce,
    "if": _if,
    "nullif": lower_nullif,
}
"""How each function of `functions.FUNCTIONS` lowers, by the same names."""
_FUNCTIONS.update(DATE_FUNCTIONS)
