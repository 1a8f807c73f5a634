"""Decimal columns stay exact in expressions, with DuckDB's types: pandas, the DuckDB lowering and
a compiled script give the same values in the same DECIMAL(precision, scale) as DuckDB itself
computes from the same text; point literals are exact where they meet a decimal (TPC-H Q6)."""

from __future__ import annotations

import re
from decimal import Decimal

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import Phase, example, given
from hypothesis import strategies as st

from runtime.errors import NotLowerable
from runtime.expressions import ExpressionError, evaluate, filter_mask, infer_type
from runtime.expressions.decimals import decimal_added, decimal_multiplied, decimal_shared
from runtime.expressions.exact_decimals import DecimalRangeError, exact_decimal
from runtime.expressions.to_sql import to_sql, to_sql_condition
from runtime.tables.frames import to_pandas
from runtime.tables.schema import schema_of
from tests.runtime.compile.test_expression_code import generated
from tests.strategies import bounded


def decimals(values: list[str | None], precision: int, scale: int) -> pd.Series:
    kind = pa.decimal128(precision, scale)
    data = pa.array([None if v is None else Decimal(v) for v in values], kind)
    return pd.Series(data, dtype=pd.ArrowDtype(kind))


LINEITEM = pd.DataFrame(
    {
        "l_extendedprice": decimals(["17954.55", "2.50", "0.01", "99999.99", None, "3.33"], 15, 2),
        "l_discount": decimals(["0.05", "0.06", "0.07", "0.08", "0.04", None], 15, 2),
        "l_tax": decimals(["0.02", "0.00", "0.08", "0.01", "0.06", "0.03"], 15, 2),
        "l_quantity": pd.array([17, 36, None, 28, 2, 24], dtype="Int64"),
        "amount": [1.5, 2.0, None, 0.25, 3.0, 7.0],
    }
)


@pytest.fixture(scope="module")
def con():
    connection = duckdb.connect()
    yield connection
    connection.close()


def duckdb_native(con, text: str, frame: pd.DataFrame) -> pd.Series:
    """`text` as DuckDB itself computes it, written as SQL over the same columns."""
    con.register("t", pa.Table.from_pandas(frame, preserve_index=False))
    try:
        return to_pandas(con.sql(f"SELECT {text} AS v FROM t").to_arrow_table())["v"]
    finally:
        con.unregister("t")


def duckdb_lowered(con, text: str, frame: pd.DataFrame, condition: bool = False) -> pd.Series:
    """`text` lowered by `to_sql` and run by DuckDB."""
    lowering = to_sql_condition if condition else to_sql
    lowered = lowering(text, schema_of(frame))
    con.register("t", pa.Table.from_pandas(frame, preserve_index=False))
    try:
        query = con.sql(f"SELECT {lowered.sql} AS v FROM t", params=list(lowered.params))
        return to_pandas(query.to_arrow_table())["v"]
    finally:
        con.unregister("t")


def assert_same_everywhere(con, text: str, frame: pd.DataFrame) -> pd.Series:
    """pandas, the DuckDB lowering and the compiled code agree on every value and dtype."""
    expected = evaluate(text, frame)
    lowered = duckdb_lowered(con, text, frame)
    same = {"check_exact": True, "obj": text, "check_names": False, "check_dtype": False}
    pd.testing.assert_series_equal(lowered, expected, **same)  # bool or boolean
    assert lowered.dtype == expected.dtype or expected.dtype == bool
    pd.testing.assert_series_equal(generated(text, frame), expected, check_exact=True, obj=text)
    return expected


# --- DuckDB's own types ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "l_extendedprice * l_discount",  # DECIMAL(18,4): 64-bit operands stay 64-bit
        "1 - l_discount",  # DECIMAL(16,2)
        "l_extendedprice * (1 - l_discount) * (1 + l_tax)",  # DECIMAL(18,6)
        "l_extendedprice + l_quantity",  # a BIGINT is DECIMAL(19,0): DECIMAL(22,2)
        "l_extendedprice * l_quantity",  # DECIMAL(34,2)
        "l_discount * 0.06",
        "l_discount + 1.5",
        "l_discount - 100000",
        "-l_discount",
        "abs(l_discount - 1)",
        "floor(l_extendedprice)",
        "ceil(l_extendedprice)",
        "round_even(l_extendedprice, 1)",
        "coalesce(l_discount, 0.5)",
        "coalesce(l_discount, l_quantity)",
        "l_discount / l_extendedprice",  # DOUBLE
        "l_discount * amount",  # DOUBLE
    ],
)
def test_a_decimal_expression_has_duckdbs_own_type_and_value(con, text):
    ours = text.replace("round_even", "round")
    expected = duckdb_native(con, text, LINEITEM)
    got = assert_same_everywhere(con, ours, LINEITEM)
    if expected.dtype == "float64":
        pd.testing.assert_series_equal(got, expected, check_names=False, rtol=1e-12)
    else:
        pd.testing.assert_series_equal(got, expected, check_exact=True, check_names=False)


@pytest.mark.parametrize(
    "text",
    [
        "null + l_discount",
        "coalesce(null, l_discount, 0.5)",
        "if(l_quantity > 20, null, l_discount)",
        "if(l_quantity > 20, l_tax * 2, 0.125)",
        "l_discount in (null, 0.07)",
        "0.05 in (l_discount, 0.5)",
        "null between l_discount and 1",
        "l_discount not between l_tax and 0.07",
        "l_discount = null",
        "coalesce(l_discount, amount)",
        "l_discount in (0.5e0, amount)",
        "l_discount % 0.03",
        "l_extendedprice ** 0.5",
        "case when l_quantity > 20 then l_discount else 0 end",
        "case when l_quantity > 20 then l_discount end",
        "case when amount > 2 then l_tax else 2.5 end",
        "case l_discount when 0.07 then 1 else l_tax end",
        "case when l_quantity > 20 then l_discount else amount end",
        "case amount when 0.25 then l_extendedprice end",
        "nullif(l_discount, 0.05)",
    ],
)
def test_nulls_floats_and_choices_meet_decimals_alike_everywhere(con, text):
    assert_same_everywhere(con, text, LINEITEM)


@pytest.mark.parametrize(
    ("left", "right", "added", "multiplied"),
    [
        ((15, 2), (15, 2), (16, 2), (18, 4)),
        ((20, 3), (20, 3), (21, 3), (38, 6)),
        ((20, 3), (15, 2), (21, 3), (35, 5)),
        ((38, 2), (38, 2), (38, 2), (38, 4)),
        ((38, 0), (38, 10), (38, 10), (38, 10)),
        ((10, 9), (10, 9), (11, 9), (20, 18)),
        ((18, 0), (18, 0), (19, 0), (18, 0)),
        ((4, 4), (10, 0), (15, 4), (14, 4)),
    ],
)
def test_result_types_follow_duckdbs_rules(con, left, right, added, multiplied):
    assert decimal_added(left, right) == added
    assert decimal_multiplied(left, right) == multiplied
    cast = f"CAST(1 AS DECIMAL{left}) {{}} CAST(1 AS DECIMAL{right})"
    for op, expected in (("+", added), ("*", multiplied)):
        [(kind,)] = con.sql(f"SELECT typeof({cast.format(op)})").fetchall()
        assert kind == f"DECIMAL({expected[0]},{expected[1]})"


def test_coalesce_of_decimals_too_wide_together_gives_up_scale_as_duckdb(con):
    [(kind,)] = con.sql(
        "SELECT typeof(coalesce(CAST(1 AS DECIMAL(38,0)), CAST(1 AS DECIMAL(38,10))))"
    ).fetchall()
    assert kind == "DECIMAL(38,0)" and decimal_shared([(38, 0), (38, 10)]) == (38, 0)


# --- literals ----------------------------------------------------------------------------------


def test_q6s_between_keeps_exactly_the_rows_at_its_bounds(con):
    text = "l_discount between 0.06 - 0.01 and 0.06 + 0.01"
    kept = [True, True, True, False, False, False]
    assert filter_mask(text, LINEITEM).tolist() == kept
    assert duckdb_lowered(con, text, LINEITEM, condition=True).tolist() == kept
    assert generated(text, LINEITEM).fillna(False).tolist() == kept


def test_a_point_literal_stays_a_float_where_no_decimal_meets_it(con):
    assert infer_type("amount * 0.92", schema_of(LINEITEM)) == ("float", True)
    assert infer_type("0.06 - 0.01", schema_of(LINEITEM)) == ("float", False)
    assert evaluate("l_discount * 6e-2", LINEITEM).dtype == "float64"  # an exponent: a float


def test_arithmetic_of_literals_alone_is_exact_then_the_nearest_float_as_in_duckdb(con):
    """Q6 over CSV, where money is read as floats: DuckDB folds `0.06 + 0.01` in decimals
    (0.07, not 0.06999999999999999), so the rows at 0.07 are kept."""
    frame = pd.DataFrame({"discount": [0.04, 0.05, 0.06, 0.07, 0.08]})
    text = "discount between 0.06 - 0.01 and 0.06 + 0.01"
    kept = [False, True, True, True, False]
    assert filter_mask(text, frame).tolist() == kept
    assert duckdb_lowered(con, text, frame, condition=True).tolist() == kept
    assert generated(text, frame).tolist() == kept
    native = duckdb.connect().execute("SELECT 0.06 - 0.01, 0.1 * 3").fetchall()[0]
    for text, value in zip(["0.06 - 0.01", "0.1 * 3"], native, strict=True):
        assert evaluate(text, frame).iloc[0] == float(value)
        assert duckdb_lowered(con, text, frame).iloc[0] == float(value)


def test_a_sum_of_decimal_revenue_is_duckdbs_exact_answer(con):
    text = "l_extendedprice * (1 - l_discount) * (1 + l_tax)"
    con.register("t", pa.Table.from_pandas(LINEITEM, preserve_index=False))
    [(exact,)] = con.sql(f"SELECT sum({text}) FROM t").fetchall()
    con.unregister("t")
    revenue = evaluate(text, LINEITEM)
    assert str(revenue.dtype) == "decimal128(18, 6)[pyarrow]"
    assert pc.sum(pa.array(revenue.array)).as_py() == exact


def test_a_result_too_large_for_its_type_is_an_error_on_both():
    frame = pd.DataFrame({"x": decimals(["9999999999999.99"], 15, 2)})
    with pytest.raises(ExpressionError, match="does not fit DECIMAL\\(18,4\\)"):
        evaluate("x * x", frame)
    with pytest.raises(duckdb.Error, match="Overflow"):
        duckdb_lowered(duckdb.connect(), "x * x", frame)


def test_a_decimal_does_not_meet_text():
    with pytest.raises(ExpressionError, match="'l_discount' is decimal but 'a' is string"):
        infer_type("l_discount = 'a'", schema_of(LINEITEM))
    with pytest.raises(ExpressionError, match="expects numbers but 'a' is string"):
        infer_type("l_discount + 'a'", schema_of(LINEITEM))


# --- random decimals ---------------------------------------------------------------------------


@st.composite
def decimal_columns(draw) -> pd.Series:
    scale = draw(st.integers(0, 4))
    precision = draw(st.integers(max(scale, 1), 12))
    limit = 10**precision - 1
    units = draw(st.lists(st.none() | st.integers(-limit, limit), min_size=4, max_size=4))
    values = [None if u is None else str(Decimal(u).scaleb(-scale)) for u in units]
    return decimals(values, precision, scale)


NUMBERS = st.sampled_from(["a", "b", "i", "0.5", "-1.25", "3", "0.06 + 0.01", "(2 - 0.125)"])


def _expressions(operands):
    arithmetic = st.tuples(operands, st.sampled_from(["+", "-", "*"]), operands).map(
        lambda parts: f"({parts[0]} {parts[1]} {parts[2]})"
    )
    calls = st.tuples(st.sampled_from(["abs", "floor", "ceil", "-"]), operands).map(
        lambda parts: f"{parts[0]}({parts[1]})"
    )
    return arithmetic | calls


VALUES = st.one_of(NUMBERS, _expressions(NUMBERS), _expressions(_expressions(NUMBERS)))
CONDITIONS = st.one_of(
    st.tuples(VALUES, st.sampled_from(["=", "<>", "<", ">="]), VALUES).map(" ".join),
    st.tuples(VALUES, VALUES, VALUES).map(lambda p: f"{p[0]} between {p[1]} and {p[2]}"),
    st.tuples(VALUES, VALUES).map(lambda p: f"{p[0]} in (0.5, {p[1]}, null)"),
)


@bounded(30, phases=[Phase.explicit, Phase.generate])  # no shrinking: it can take minutes
@given(
    a=decimal_columns(),
    b=decimal_columns(),
    text=st.one_of(VALUES, CONDITIONS, VALUES.map(lambda v: f"coalesce(a, {v}, b)")),
)
def test_random_decimal_expressions_agree_on_pandas_duckdb_and_compiled_code(con, a, b, text):
    """(Not DuckDB's own typing of the text: `0.5 + i` is a float here, as `0.5` meets no
    decimal, and `3 * 3` a BIGINT, as all integer arithmetic.)"""
    frame = pd.DataFrame({"a": a, "b": b, "i": pd.array([3, None, -7, 0], dtype="Int64")})
    if not re.search(r"\b[ab]\b", text):
        text = f"a + {text}"  # at least one decimal
    try:
        expected = evaluate(text, frame)
    except ExpressionError:  # a result too large for its type: DuckDB refuses it too
        with pytest.raises((duckdb.Error, NotLowerable)):
            duckdb_lowered(con, text, frame)
        return
    pd.testing.assert_series_equal(generated(text, frame), expected, check_exact=True, obj=text)
    try:
        lowered = duckdb_lowered(con, text, frame)
    except NotLowerable:  # as for any number: `i in (0.5, abs(-1.25))` stays on pandas
        return
    same = {"check_exact": True, "obj": text, "check_names": False, "check_dtype": False}
    pd.testing.assert_series_equal(lowered, expected, **same)  # bool or boolean
    assert lowered.dtype == expected.dtype or expected.dtype == bool


SCALAR_VALUES = st.one_of(
    st.decimals(allow_nan=False, allow_infinity=False),
    st.integers(0, 8).flatmap(lambda places: st.decimals(-(10**9), 10**9, places=places)),
    st.sampled_from([Decimal("0"), Decimal("-0"), Decimal("1E+3"), Decimal("-0.50"), None]),
    st.sampled_from([Decimal("NaN"), Decimal("-Infinity"), Decimal("9" * 38), Decimal("1E-38")]),
)


@given(value=SCALAR_VALUES, precision=st.integers(1, 38), scale=st.integers(0, 38))
@example(value=Decimal("9.9999999999999999990E-20"), precision=1, scale=0)
def test_a_decimal_constant_is_pyarrows_value_without_pyarrow(value, precision, scale):
    """Constants are checked and kept in plain Python (a DuckDB run never imports pyarrow for
    them) and become pyarrow's own scalar where pandas computes: the same value and the same
    scalar as `pa.scalar` gives, or a refusal where pyarrow refuses, or where pyarrow loses
    digits without a word (pyarrow 26 makes 0 of 9.9999999999999999990E-20 in DECIMAL(1, 0),
    a value of 20 digits, and refuses 9.999999999999999999E-20)."""
    scale = min(scale, precision)
    try:
        expected = pa.scalar(value, pa.decimal128(precision, scale))
    except (pa.ArrowInvalid, ValueError):
        with pytest.raises(DecimalRangeError):
            exact_decimal(value, precision, scale)
        return
    if value is not None and expected.as_py() != value:
        with pytest.raises(DecimalRangeError):
            exact_decimal(value, precision, scale)
        return
    built = exact_decimal(value, precision, scale)
    assert built.value == expected.as_py() and str(built.value) == str(expected.as_py())
    scalar = built.arrow()
    assert scalar.type == expected.type and scalar.as_py() == expected.as_py()
    assert scalar.is_valid == expected.is_valid
