"""Expressions written as pandas code compute what the runtime computes: the same values and
dtypes on random well-typed trees over an awkward frame (nulls, NaN, huge integers, dates),
and no text of the expression ever reaches the code except through repr()."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given

from runtime.compile.carry import carried
from runtime.compile.errors import CompileRefused
from runtime.compile.expressions import expression_code
from runtime.compile.script import _exception_classes
from runtime.compile.support import PipelineError
from runtime.expressions import ExpressionError, evaluate
from runtime.expressions.compiler import positional_view
from runtime.tables.schema import schema_of
from tests.runtime.expression_trees import FRAME, SCHEMA, WELL_TYPED, render
from tests.strategies import bounded


def generated(text: str, frame: pd.DataFrame, parameters: dict | None = None, **values):
    """The code's value over `frame`, run with only the carried helpers in scope."""
    code = expression_code(text, schema_of(frame), parameters or {})
    helpers = carried([*code.helpers, positional_view, PipelineError])
    source = "\n".join(
        [
            "from __future__ import annotations",
            "import datetime",
            *sorted(helpers.imports),
            *helpers.definitions.values(),
            *_exception_classes(),
        ]
    )
    scope: dict = {}
    exec(compile(source, "<helpers>", "exec"), scope)
    scope.update(view=positional_view(frame), params=values)
    with np.errstate(all="ignore"):
        result = eval(compile(code.code, "<expression>", "eval"), scope)
    return result.set_axis(frame.index).rename(None)


@bounded(200, tolerate=[HealthCheck.too_slow])
@given(WELL_TYPED)
def test_a_random_expression_compiles_to_code_with_the_runtimes_values_and_dtype(tree):
    text = render(tree)
    try:
        expected = evaluate(text, FRAME)
    except ExpressionError:
        return  # the run fails on this frame: there is no output to compare
    try:
        actual = generated(text, FRAME)
    except CompileRefused:
        return
    pd.testing.assert_series_equal(actual, expected, check_exact=True)


@pytest.mark.parametrize(
    "name",
    ["a'b", 'a"b', "a\nb", "back\\slash", "__import__('os').system('echo x')", "x')]; y=(['"],
)
def test_a_hostile_column_name_reaches_the_code_only_as_a_quoted_string(name):
    frame = pd.DataFrame({name: pd.array([1, None, 3], dtype="Int64")})
    quoted = "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"
    code = expression_code(f"{quoted} > 1", schema_of(frame), {}).code
    assert repr(name) in code
    assert generated(f"{quoted} > 1", frame).tolist() == [False, pd.NA, True]


@pytest.mark.parametrize(
    "value", ["'); import os; ('", '"""', "\\n\\x00", "__import__('os')", "a\nb\\c"]
)
def test_a_hostile_string_literal_is_compared_as_text(value):
    frame = pd.DataFrame({"s": pd.Series([value, "other"], dtype="str")})
    literal = "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    assert generated(f"s = {literal}", frame).tolist() == [True, False]


def test_a_parameter_becomes_the_scripts_option_not_its_default():
    frame = pd.DataFrame({"age": pd.array([10, 20, 30], dtype="Int64")})
    code = expression_code("age > ${min_age}", schema_of(frame), {"min_age": 15}).code
    assert "params['min_age']" in code and "15" not in code
    assert generated("age > ${min_age}", frame, {"min_age": 15}, min_age=25).tolist() == [
        False,
        False,
        True,
    ]


def test_a_value_the_runtime_computes_once_from_a_parameter_is_computed_once_by_the_script():
    frame = pd.DataFrame({"x": [1.0, 2.0, 4.0]})
    code = expression_code("x * (1 + ${vat})", schema_of(frame), {"vat": 0.5}).code
    assert "folded_value(lambda view:" in code
    assert generated("x * (1 + ${vat})", frame, {"vat": 0.5}, vat=1.0).tolist() == [2.0, 4.0, 8.0]


def test_a_parameter_without_a_default_is_refused():
    with pytest.raises(CompileRefused, match="parameter 'n' has no default"):
        expression_code("i > ${n}", SCHEMA, {"n": None})


@pytest.mark.parametrize(
    "shape", ["abs({})", "if(b, {}, 0)", "coalesce({}, 1)", "({} + 1)", "round({}, 1)"]
)
def test_the_deepest_expression_the_language_accepts_compiles_to_code_python_reads(shape):
    frame = pd.DataFrame({"x": pd.array([1, None], dtype="Int64"), "b": [True, False]})
    text = "x"
    while True:
        deeper = shape.format(text)
        try:
            evaluate(deeper, frame)
        except ExpressionError:
            break
        text = deeper
    pd.testing.assert_series_equal(generated(text, frame), evaluate(text, frame))


DATED = pd.DataFrame(
    {
        "d": pd.Series(
            [pd.Timestamp("2024-01-31").date(), None, pd.Timestamp("9999-12-31").date()],
            dtype="date32[pyarrow]",
        ),
        "n": pd.array([1, None, 3], dtype="Int64"),
        "t": pd.to_datetime(["2024-01-31 10:30:00", None, "2020-02-29 23:59:59"]),
    },
    index=[4, 2, 9],
)


TEXTS = pd.DataFrame(
    {
        "s": pd.Series(["abc", None, "A%\\", "x\nz"], dtype="str"),
        "n": pd.array([1, 2, None, 4], dtype="Int64"),
        "x": [0.5, 2.0, np.nan, 4.0],
    }
)


@pytest.mark.parametrize(
    "text",
    [
        "d + interval 1 month", "d - interval '90' day", "interval 1 year + d", "d + n", "n + d",
        "d - date '1998-12-01'", "date '1998-12-01' - d", "date_add(d, interval -2 quarters)",
        "extract(dayofweek from d)", "week(t)", "hour(t)", "date_trunc('week', d)",
        "date_trunc('month', t)", "date_diff('month', d, date '2025-01-01')",
        "date_diff('minute', t, timestamp '2024-01-01 00:00:00')", "t + interval 3 hours",
        "timestamp(d)", "d < date '1998-12-01' + interval 1 day", "null - d",
    ],
)  # fmt: skip
def test_date_expressions_compile_to_code_with_the_runtimes_values(text):
    pd.testing.assert_series_equal(generated(text, DATED), evaluate(text, DATED), check_exact=True)


def test_a_date_unit_from_a_parameter_is_refused_by_name():
    with pytest.raises(CompileRefused, match="date_trunc\\(\\) with a parameter as its unit"):
        expression_code("date_trunc(${unit}, d)", schema_of(DATED), {"unit": "month"})


@pytest.mark.parametrize(
    "text",
    [
        "s like 'a%'", "s not like '_b_'", "s ilike 'a!%%' escape '!'", "s not ilike '%\\\\'",
        "s like '%' + 'c'", "case when n > 1 then s else 'small' end", "case when x > 1 then n end",
        "case n when 1 then x when 2.0 then 0 else -1 end", "case s when 'abc' then 1 end",
        "nullif(n, 2)", "nullif(x, n)", "nullif(s, 'abc')", "nullif(n, null)",
        "substring(s from 2 for 1)", "substring(s, 2)",
    ],
)  # fmt: skip
def test_patterns_and_conditionals_compile_to_code_with_the_runtimes_values(text):
    pd.testing.assert_series_equal(generated(text, TEXTS), evaluate(text, TEXTS), check_exact=True)


def test_a_like_pattern_from_a_parameter_is_the_scripts_option():
    code = expression_code("s like ${p}", schema_of(TEXTS), {"p": "a%"}).code
    assert "params['p']" in code
    assert generated("s like ${p}", TEXTS, {"p": "a%"}, p="x%").tolist() == [
        False,
        pd.NA,
        False,
        True,
    ]
