"""Exact decimals in expressions: DuckDB's DECIMAL rules, computed with pyarrow on pandas.

A `decimal` column (Arrow decimal128, DuckDB's DECIMAL) stays exact in an expression: `+ - *`
of decimals, and of a decimal with an integer, give a decimal whose precision and scale are
the ones DuckDB gives (`decimal_added`, `decimal_multiplied`); comparisons are exact. A
decimal meeting a float, and `/`, `%` and `**`, give floats, as DuckDB's `/` gives DOUBLE.
The check knows only that a value is `decimal`: precision and scale are the data's, so the
pandas code below computes them from its operands' Arrow types, by the same rules DuckDB
binds its SQL with.

A number written with a point and no exponent (`0.06`) is a float, as it always was, except
where it meets a decimal: there it is the exact decimal DuckDB reads it as (`0.06` is
DECIMAL(3,2)), and so is a sum, difference or product of such literals and integer literals
(`0.06 + 0.01` is DECIMAL(4,2) 0.07), found from the syntax tree by `exact_value`, which the
DuckDB lowering (`sql_decimals.py`) uses too. An integer literal is DuckDB's INTEGER
(DECIMAL(10,0)) when it fits 32 bits, any other integer a BIGINT (DECIMAL(19,0)).

A result that does not fit its type is an error, in DuckDB as here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from functools import partial

from runtime.lazy import pa, pc, pd

from .exact_decimals import ExactDecimal, exact_decimal
from .nodes import Binary, Literal, Node, Unary, walk
from .values import NULL, Compiled, as_series, constant, derive, floats, index_of, is_true

DECIMAL = "decimal"
MAX_DECIMAL_WIDTH = 38
"""The most digits a DECIMAL holds (DuckDB's and decimal128's)."""
_DECIMAL_INT64_WIDTH = 18
_INTEGER_LITERAL = (10, 0)
"""A literal that fits 32 bits is DuckDB's INTEGER, as a decimal DECIMAL(10,0)."""
_BIGINT = (19, 0)
_MEETS = ("integer", "float", DECIMAL, NULL)
_POINT_NUMBER = re.compile(r"(-*)([0-9]+\.[0-9]*|\.[0-9]+)")
_EXACT_OPS = {"+": Decimal.__add__, "-": Decimal.__sub__, "*": Decimal.__mul__}
_DECIMAL_OPS = {"+": "add_checked", "-": "subtract_checked", "*": "multiply_checked"}


# -- DuckDB's result types ------------------------------------------------------------------


def decimal_added(left: tuple[int, int], right: tuple[int, int]) -> tuple[int, int]:
    """The (precision, scale) of `left + right` and `left - right` (DuckDB's rule)."""
    scale = max(left[1], right[1])
    width = max(scale + max(left[0] - left[1], right[0] - right[1]), left[0], right[0])
    return min(width + 1, MAX_DECIMAL_WIDTH), scale


def decimal_multiplied(left: tuple[int, int], right: tuple[int, int]) -> tuple[int, int]:
    """The (precision, scale) of `left * right` (DuckDB's rule: 64-bit operands stay 64-bit
    when they can, and an error if the scale needs more than 38 digits)."""
    width, scale = left[0] + right[0], left[1] + right[1]
    if scale > MAX_DECIMAL_WIDTH:
        raise ValueError(
            f"multiplying DECIMAL({left[0]},{left[1]}) by DECIMAL({right[0]},{right[1]}) "
            f"needs scale {scale}; at most {MAX_DECIMAL_WIDTH} is possible"
        )
    small = max(left[0], right[0]) <= _DECIMAL_INT64_WIDTH and scale < _DECIMAL_INT64_WIDTH
    if width > _DECIMAL_INT64_WIDTH and small:
        width = _DECIMAL_INT64_WIDTH
    return min(width, MAX_DECIMAL_WIDTH), scale


def decimal_shared(types: list[tuple[int, int]]) -> tuple[int, int]:
    """The (precision, scale) that `coalesce()` and `if()` give decimals (DuckDB's rule: the
    scale gives way when both do not fit 38 digits)."""
    whole = max(precision - scale for precision, scale in types)
    scale = max(scale for _, scale in types)
    if whole + scale > MAX_DECIMAL_WIDTH:
        return MAX_DECIMAL_WIDTH, MAX_DECIMAL_WIDTH - whole
    return whole + scale, scale


def decimal_result_type(op: str, left: tuple[int, int], right: tuple[int, int]) -> tuple[int, int]:
    return decimal_multiplied(left, right) if op == "*" else decimal_added(left, right)


# -- literals -------------------------------------------------------------------------------


def exact_value(node: Node, text: str) -> ExactDecimal | None:
    """The exact decimal a constant part of an expression is where it meets a decimal: a
    number with a point (DuckDB reads `0.06` as DECIMAL(3,2)), negated, or summed, subtracted
    and multiplied with others or with integer literals. None for anything else."""
    found = _exact(node, text)
    return None if found is None or found.scale < 0 or found.precision == 0 else found


def _exact(node: Node, text: str, integers: bool = False) -> ExactDecimal | None:
    if isinstance(node, Literal):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            return None
        if isinstance(node.value, int):
            return integer_decimal(node, node.value) if integers else None
        return _point_literal(text[node.span[0] : node.span[1]])
    if isinstance(node, Unary) and node.op == "-":
        operand = _exact(node.operand, text)
        return None if operand is None else _negated(operand)
    if isinstance(node, Binary) and node.op in _EXACT_OPS:
        left, right = _exact(node.left, text, True), _exact(node.right, text, True)
        if left is None or right is None or 0 == left.scale == right.scale:
            return None  # integers alone stay integers
        try:
            types = left[1:], right[1:]
            precision, scale = decimal_result_type(node.op, *types)
            value = _EXACT_OPS[node.op](left.value, right.value)
            return exact_decimal(value, precision, scale)
        except ValueError:
            return None  # does not fit: stays a float
    return None


def literal_arithmetic(node: Node, text: str) -> float | None:
    """The float nearest the exact value of `+ - *` over literals with a point (and integer
    literals), where DuckDB computes it in decimals; None for anything else."""
    if not (isinstance(node, Binary) and node.op in _EXACT_OPS):
        return None
    if not all(isinstance(part, Literal | Unary | Binary) for part in walk(node)):
        return None  # a column takes part: not literals alone (and no pyarrow scalar made)
    exact = exact_value(node, text)
    return None if exact is None else float(exact.value)


def _point_literal(source: str) -> ExactDecimal | None:
    """`0.06` (as written, maybe negated or in parentheses) as DuckDB reads it."""
    match = _POINT_NUMBER.fullmatch(re.sub(r"[\s()]", "", source))
    if match is None:
        return None
    digits = match[2]
    precision, scale = len(digits) - 1, len(digits.partition(".")[2])
    if precision > MAX_DECIMAL_WIDTH or precision < 1:
        return None
    value = Decimal(digits) * (-1 if len(match[1]) % 2 else 1)
    return exact_decimal(value, precision, scale)


def _negated(operand: ExactDecimal) -> ExactDecimal:
    return exact_decimal(-operand.value, operand.precision, operand.scale)


def integer_decimal(node: Node, value: int | None) -> ExactDecimal:
    """An integer constant as a decimal: a literal that fits 32 bits is DuckDB's INTEGER."""
    small = isinstance(node, Literal) and value is not None and -(2**31) < value < 2**31
    precision, _ = _INTEGER_LITERAL if small else _BIGINT
    return exact_decimal(None if value is None else Decimal(value), precision, 0)


# -- type checks ----------------------------------------------------------------------------


def promoted(text: str, args: list[Compiled]) -> list[Compiled]:
    """`args` that meet where one of them is a decimal, as DuckDB types them: all decimals
    (integers widened, exact literals as decimals), or, when a float is among them, all
    floats. Unchanged when none is a decimal."""
    if not any(arg.type == DECIMAL for arg in args) or any(arg.type not in _MEETS for arg in args):
        return list(args)  # no decimal, or a type mistake for the checker to name
    decimals = [as_decimal(text, arg) for arg in args]
    if all(found is not None for found in decimals):
        return decimals
    return [as_float(arg) for arg in args]


def as_decimal(text: str, arg: Compiled) -> Compiled | None:
    """`arg` as a decimal operand (None for a float that is not an exact literal)."""
    if arg.type in (DECIMAL, NULL):
        return arg
    if arg.type == "integer":
        if arg.is_constant:
            return constant(arg.node, integer_decimal(arg.node, arg.constant), DECIMAL)
        return derive(arg.node, DECIMAL, arg.nullable, decimal_widened, arg)
    if arg.type == "float" and arg.is_constant and arg.constant is not None:
        exact = exact_value(arg.node, text)
        if exact is not None:
            return constant(arg.node, exact, DECIMAL)
    return None


def as_float(arg: Compiled) -> Compiled:
    """A decimal operand read as floats (each value the nearest float), others unchanged."""
    if arg.type != DECIMAL:
        return arg
    return derive(arg.node, "float", arg.nullable, decimal_floats, arg)


def arithmetic(checker, node: Binary, left: Compiled, right: Compiled, fallback: Callable):
    """`left op right` where either side is a decimal (None where neither is): exact for
    `+ - *` of decimals, exact literals and integers, else `fallback` over floats. Literals
    alone (`0.06 + 0.01`) are computed exactly too, as DuckDB does, and give the float nearest
    the exact value where no decimal is met (`0.07`, not `0.06999999999999999`)."""
    if DECIMAL not in (left.type, right.type):
        exact = literal_arithmetic(node, checker.text)
        return None if exact is None else constant(node, exact, "float")
    for side in (left, right):
        checker.expect(side, ("integer", "float", DECIMAL), "numbers", f"'{node.op}'")
    if node.op not in _DECIMAL_OPS:
        return fallback(checker, node, as_float(left), as_float(right))
    left, right = promoted(checker.text, [left, right])
    if DECIMAL not in (left.type, right.type):  # a float among them: floats
        return fallback(checker, node, left, right)
    if NULL in (left.type, right.type):
        return constant(node, None, NULL)
    nullable = left.nullable or right.nullable
    return derive(node, DECIMAL, nullable, partial(decimal_arithmetic, node.op), left, right)


# -- pandas values --------------------------------------------------------------------------


def _decimal_data(value: object) -> pa.Array | pa.ChunkedArray | pa.Scalar:
    """An operand as Arrow data: decimal128, or Arrow's null type for a resolved null."""
    if isinstance(value, ExactDecimal):
        return value.arrow()
    if isinstance(value, pa.Scalar):  # a case's missing `else`
        return value
    data = value.array.__arrow_array__()
    kind = data.type
    if pa.types.is_decimal(kind) and not pa.types.is_decimal128(kind):
        data = data.cast(pa.decimal128(kind.precision, kind.scale))
    return data


def _decimal_type(value: pa.Array | pa.ChunkedArray | pa.Scalar) -> tuple[int, int]:
    return value.type.precision, value.type.scale


def _decimal_series(data: pa.Array | pa.ChunkedArray, index: pd.Index) -> pd.Series:
    return pd.Series(pd.arrays.ArrowExtensionArray(data), index=index, copy=False)


def decimal_widened(series: pd.Series) -> pd.Series:
    """Integers as DECIMAL(19,0), as DuckDB widens a BIGINT to meet a decimal."""
    data = pa.array(series, from_pandas=True).cast(pa.decimal128(*_BIGINT))
    return _decimal_series(data, series.index)


def decimal_floats(series: pd.Series) -> pd.Series:
    """Decimals as the nearest floats, nulls as NaN."""
    return pd.Series(floats(series), index=series.index)


def _decimal_fitted(data, target: tuple[int, int]):
    """`data` in DECIMAL(target), rounding away excess scale half away from zero as DuckDB
    casts; an error naming the type when a value does not fit."""
    if pa.types.is_null(data.type):
        return data.cast(pa.decimal128(*target))
    if data.type.scale > target[1]:
        data = pc.round(data, ndigits=target[1], round_mode="half_towards_infinity")
    if isinstance(data.type, pa.Decimal256Type) or _decimal_type(data) != target:
        try:
            data = data.cast(pa.decimal128(*target))
        except pa.ArrowInvalid as error:
            raise ValueError(f"a value does not fit DECIMAL({target[0]},{target[1]})") from error
    return data


def decimal_arithmetic(op: str, left: object, right: object) -> pd.Series:
    """`left op right` (`+ - *`) exactly, in the DECIMAL type DuckDB gives it."""
    index = index_of(left, right)
    first, second = _decimal_data(left), _decimal_data(right)
    if pa.types.is_null(first.type) or pa.types.is_null(second.type):
        known = second if pa.types.is_null(first.type) else first
        return _decimal_series(pa.nulls(len(index), known.type), index)
    target = decimal_result_type(op, _decimal_type(first), _decimal_type(second))
    own = _decimal_arrow_type(op, _decimal_type(first), _decimal_type(second))
    if own[0] > MAX_DECIMAL_WIDTH:  # pyarrow's own type for the result would not fit decimal128
        first, second = _decimal_wide(first, second, op)
    result = getattr(pc, _DECIMAL_OPS[op])(first, second)
    return _decimal_series(_decimal_fitted(result, target), index)


def _decimal_arrow_type(op: str, left: tuple[int, int], right: tuple[int, int]) -> tuple[int, int]:
    """The type pyarrow computes `left op right` in (one digit more than it can need)."""
    if op == "*":
        return left[0] + right[0] + 1, left[1] + right[1]
    scale = max(left[1], right[1])
    return max(left[0] - left[1], right[0] - right[1]) + scale + 1, scale


def _decimal_wide(first, second, op: str):
    """Both operands as decimal256, the wider narrowed so that pyarrow's result type fits 76
    digits (only a product of two decimals of 38 digits needs it: such a value times a number
    from 1 up overflows anyway)."""
    (p1, s1), (p2, s2) = _decimal_type(first), _decimal_type(second)
    if op == "*" and p1 + p2 + 1 > 76:
        p1, p2 = (75 - p2, p2) if p1 >= p2 else (p1, 75 - p1)
    return first.cast(pa.decimal256(p1, s1)), second.cast(pa.decimal256(p2, s2))


def decimal_compare(op: str, left: object, right: object) -> pd.Series:
    """`left op right` on decimals, exactly, null where either side is null."""
    index = index_of(left, right)
    first, second = _decimal_data(left), _decimal_data(right)
    if pa.types.is_null(first.type) or pa.types.is_null(second.type):
        return pd.Series(pd.NA, index=index, dtype="boolean")
    (p1, s1), (p2, s2) = _decimal_type(first), _decimal_type(second)
    scale = max(s1, s2)
    width = max(p1 - s1, p2 - s2) + scale
    if width > MAX_DECIMAL_WIDTH:  # pyarrow compares in a shared type: a wider one
        first, second = (
            first.cast(pa.decimal256(width, scale)),
            second.cast(pa.decimal256(width, scale)),
        )
    result = getattr(pc, _DECIMAL_COMPARISONS[op])(first, second)
    return pd.Series(pd.BooleanDtype().__from_arrow__(result), index=index, copy=False)


def decimal_between(negated: bool, value: object, low: object, high: object) -> pd.Series:
    """`low <= value <= high` on decimals (or not, when `negated`), null where a side is null."""
    inside = decimal_compare(">=", value, low) & decimal_compare("<=", value, high)
    return ~inside if negated else inside


def decimal_in(
    choices: list, has_null: bool, negated: bool, value: object, *others: object
) -> pd.Series:
    """`value in (choices..., others...)` on decimals, one exact comparison each: SQL's `or`
    of equalities, so null when nothing matches and a null is among them."""
    index = index_of(value, *others)
    value = as_series(value, DECIMAL, index)
    found = pd.Series(False, index=index, dtype="boolean").mask(value.isna().to_numpy())
    for item in (*choices, *others):
        found = found | decimal_compare("=", value, item)
    if has_null:
        found = found | pd.Series(pd.NA, index=index, dtype="boolean")
    return ~found if negated else found


def decimal_constant(text: str | None, precision: int, scale: int) -> ExactDecimal:
    """The decimal `text` of DECIMAL(precision, scale), as a compiled script writes one."""
    return exact_decimal(None if text is None else Decimal(text), precision, scale)


_DECIMAL_COMPARISONS = {
    "=": "equal",
    "!=": "not_equal",
    "<": "less",
    "<=": "less_equal",
    ">": "greater",
    ">=": "greater_equal",
}


def _decimal_shared_arrays(items: tuple, skip: int = 0) -> tuple[list, pd.Index]:
    """The operands (after the first `skip`) as Arrow arrays in the type `coalesce()` and
    `if()` give them."""
    index = index_of(*items)
    data = [_decimal_data(item) for item in items[skip:]]
    known = [_decimal_type(item) for item in data if not pa.types.is_null(item.type)]
    target = decimal_shared(known) if known else (1, 0)
    arrays = []
    for item in data:
        if isinstance(item, pa.Scalar):
            item = pa.repeat(item, len(index))
        arrays.append(_decimal_fitted(item, target))
    return arrays, index


def decimal_first_not_null(*items: object) -> pd.Series:
    """On each row, the first of the decimal `items` that is not null, in their shared type."""
    arrays, index = _decimal_shared_arrays(items)
    return _decimal_series(pc.coalesce(*arrays), index)


def decimal_choose(test: object, yes: object, no: object) -> pd.Series:
    """`yes` where `test` is true, else `no` (a null test counts as false), in their shared type."""
    (yes_data, no_data), index = _decimal_shared_arrays((test, yes, no), 1)
    chosen = pa.array(is_true(as_series(test, "boolean", index)))
    return _decimal_series(pc.if_else(chosen, yes_data, no_data), index)


def decimal_results(anchor: object, *items: object) -> list[pd.Series]:
    """The decimal `items` as Series of the type they share (what `case` chooses among),
    aligned with `anchor` (a condition) where all of them are constants."""
    arrays, index = _decimal_shared_arrays((anchor, *items), 1)
    return [_decimal_series(array, index) for array in arrays]


def decimal_rounded(places: int, series: pd.Series) -> pd.Series:
    """`series` rounded to `places` decimal places, halves to even, in the type DuckDB's
    `round_even` gives (the scale cut to `places`, at least 0)."""
    data = _decimal_data(series)
    precision, scale = _decimal_type(data)
    if places >= scale:
        return series
    data = data.cast(pa.decimal128(min(precision + 1, MAX_DECIMAL_WIDTH), scale))  # room to carry
    result = pc.round(data, ndigits=places, round_mode="half_to_even")
    return _decimal_series(_decimal_fitted(result, (precision, max(places, 0))), series.index)


def decimal_whole(name: str, series: pd.Series) -> pd.Series:
    """`floor()` or `ceil()` of decimals: whole numbers of the same precision, scale 0."""
    data = _decimal_data(series)
    precision, scale = _decimal_type(data)
    wider = data.cast(pa.decimal128(min(precision + 1, MAX_DECIMAL_WIDTH), scale))  # room to carry
    return _decimal_series(_decimal_fitted(getattr(pc, name)(wider), (precision, 0)), series.index)
