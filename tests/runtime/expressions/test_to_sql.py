"""The expression language lowered to DuckDB SQL: no user text in the SQL, and on every row the
same values and types as the pandas compiler, unless to_sql refused with NotLowerable."""

from __future__ import annotations

import datetime as dt
import re

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.errors import NotLowerable
from runtime.expressions import (
    ExpressionError,
    evaluate,
    filter_mask,
    literal,
    referenced_columns,
)
from runtime.expressions.to_sql import to_sql, to_sql_condition
from runtime.tables.frames import to_pandas
from runtime.tables.schema import Column, Schema, date_dtype, schema_of, type_name_of
from tests.runtime.expression_trees import COLUMNS, PATTERNS, render, typed
from tests.runtime.expressions.test_fuzz import FUZZ, same_value

DIFFERENTIAL = settings(FUZZ, max_examples=600)
SMALLEST = -(2**63)
BIGGEST = 2**63 - 1
HOSTILE_NAME = '"; DROP TABLE x; --'


@pytest.fixture(scope="module")
def con():
    connection = duckdb.connect()
    yield connection
    connection.close()


def duckdb_values(con, lowered, frame: pd.DataFrame) -> pd.Series:
    """The lowered expression computed by DuckDB over `frame`, read back as pandas."""
    con.register("t", pa.Table.from_pandas(frame, preserve_index=False))
    try:
        query = f"SELECT {lowered.sql} AS v FROM t"
        return to_pandas(con.sql(query, params=list(lowered.params)).to_arrow_table())["v"]
    finally:
        con.unregister("t")


def assert_same(con, text: str, frame: pd.DataFrame) -> None:
    """DuckDB gives pandas' values (floats within 1e-9, nulls in the same rows) and type."""
    lowered = to_sql(text, schema_of(frame))
    expected = evaluate(text, frame)
    got = duckdb_values(con, lowered, frame)
    assert type_name_of(got.dtype) == lowered.type == type_name_of(expected.dtype), got.dtype
    assert len(got) == len(expected)
    for row, (mine, theirs) in enumerate(zip(got, expected, strict=True)):
        assert same_value(mine, theirs), (text, row, mine, theirs, lowered.sql)
    if lowered.type == "boolean":
        kept = duckdb_values(con, to_sql_condition(text, schema_of(frame)), frame)
        assert kept.dtype == "boolean" and not kept.isna().any()
        assert list(kept) == list(filter_mask(text, frame))


# --- no user text in the SQL -----------------------------------------------------------------

NAMES = Schema.of(
    Column(HOSTILE_NAME, "string"),
    Column('a"b', "integer"),
    Column("ünï côdé", "float"),
    Column("`odd\\name`", "integer"),
)


@pytest.mark.parametrize(
    "text",
    [
        "`\"; DROP TABLE x; --` = '\"; DROP TABLE x; --'",
        "`\"; DROP TABLE x; --` + '\\'); DROP TABLE x; --'",
        "contains(`\"; DROP TABLE x; --`, '%_\\\\') or `a\"b` > 4242",
        "`ünï côdé` * 2.75 between 0.125 and 77.5",
        "coalesce(`\\`odd\\\\name\\``, 4242) in (4243, 4244)",
        "if(true, date('2024-01-31'), date(`\"; DROP TABLE x; --`)) > date('1999-12-31')",
    ],
)
def test_sql_quotes_every_name_and_binds_every_literal(text):
    lowered = to_sql(text, NAMES)
    assert "'" not in lowered.sql  # no string literal at all: strings are always parameters
    for number in ("4242", "2.75", "0.125", "77.5", "2024", "1999"):
        assert number not in lowered.sql
    names = re.findall(r'"(?:[^"]|"")*"', lowered.sql)
    assert {name[1:-1].replace('""', '"') for name in names} <= set(NAMES.names)
    assert lowered.sql.count("?") == len(lowered.params)


def test_hostile_names_and_strings_run_as_plain_data(con):
    frame = pd.DataFrame({HOSTILE_NAME: ["'); DROP TABLE x; --", None], 'a"b': [1, 2]})
    con.execute("CREATE TABLE x AS SELECT 1 AS one")
    assert_same(con, "`\"; DROP TABLE x; --` + '\\'); DROP TABLE x; --'", frame)
    assert_same(con, "`\"; DROP TABLE x; --` = '\\'); DROP TABLE x; --' or `a\"b` = 2", frame)
    assert con.execute("SELECT one FROM x").fetchall() == [(1,)]


def test_a_nul_character_travels_in_a_parameter_but_not_in_a_column_name(con):
    frame = pd.DataFrame({"s": ["a\x00b", "ab"]})
    assert_same(con, "s + '\\\\\x00'", frame)
    assert_same(con, "contains(s, '\x00')", frame)
    nul = Schema.of(Column("a\x00b", "integer"))
    with pytest.raises(NotLowerable, match="NUL character"):
        to_sql("`a\x00b` + 1", nul)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("agee > 1", "unknown column 'agee'"),
        ("upper(i)", "upper\\(\\) expects a string"),
        ("i +", "expected an expression"),
        ("substr(s, 0)", "substr\\(\\) counts from 1"),
    ],
)
def test_bad_expressions_raise_the_same_expression_error_as_pandas(text, message):
    schema = Schema.of(Column("i", "integer"), Column("s", "string"))
    with pytest.raises(ExpressionError, match=message):
        to_sql(text, schema)


def test_a_filter_that_is_not_a_condition_is_refused_as_in_pandas():
    with pytest.raises(ExpressionError, match="a filter must be a condition"):
        to_sql_condition("i + 1", Schema.of(Column("i", "integer")))


def test_a_filter_reaches_a_parquet_scan_as_a_bare_comparison_for_row_group_pruning(tmp_path):
    plan = scan_plan(tmp_path, pa.table({"a": [1, 2, 3]}), "a > 1", Column("a", "integer"))
    assert "Filters: a > " in plan  # a bound literal shows as its value, e.g. "a > 1"


def test_a_like_filter_reaches_a_parquet_scan_as_duckdbs_own_prefix_test(tmp_path):
    plan = scan_plan(tmp_path, pa.table({"s": ["PROMO x", "y"]}), "s like 'PROMO%'",
                     Column("s", "string"))  # fmt: skip
    assert "prefix(s, 'PROMO')" in plan


def scan_plan(folder, table, text: str, column: Column) -> str:
    """DuckDB's plan of a Parquet scan of `table` filtered by `text` as lowered."""
    path = folder / "a.parquet"
    pa.parquet.write_table(table, path)
    condition = to_sql_condition(text, Schema.of(column))
    query = f"EXPLAIN SELECT * FROM read_parquet(?) WHERE {condition.sql}"
    return duckdb.connect().execute(query, [str(path), *condition.params]).fetchall()[0][1]


def test_the_result_type_and_nullability_are_infer_types():
    schema = Schema.of(Column("i", "integer", nullable=False), Column("f", "float"))
    assert (to_sql("i + 1", schema).type, to_sql("i + 1", schema).nullable) == ("integer", False)
    assert (to_sql("i / 2", schema).type, to_sql("i / 2", schema).nullable) == ("float", True)
    assert to_sql_condition("f > 1", schema).nullable is False


# --- what stays on pandas --------------------------------------------------------------------

SCHEMA = Schema.of(
    Column("i", "integer"), Column("f", "float"), Column("s", "string"), Column("t", "datetime")
)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("round(f, 2)", "round\\(\\) with digits rounds different numbers"),
        ("round(i, -2)", "round\\(\\) of an integer to tens"),
        ("round(f, 1 + 1)", "round\\(\\)'s digits runs on DuckDB only when written as a plain"),
        ("replace(s, '', '-')", "replace\\(\\) with an empty old text"),
        ("substr(s, 1 + 1)", "substr\\(\\)'s start and length runs on DuckDB only"),
        ("i in (9223372036854775807.0)", "'in' matches an integer with a float constant exactly"),
        ("f in (2, 9007199254740993)", "'in' matches an integer with a float constant exactly"),
        ("i in (-1.0 * 2)", "'in' matches an integer with a float constant exactly"),
        ("upper(s)", "upper\\(\\) stays on pandas: pyarrow and DuckDB map letter case"),
        ("lower(s)", "lower\\(\\) stays on pandas"),
        ("year(t)", "datetimes do not run on DuckDB"),
        ("t", "datetimes do not run on DuckDB"),
        ("coalesce(t, t) is null", "datetimes do not run on DuckDB"),
        ("i % (" * 12 + "i" + ")" * 12, "too large to run on DuckDB"),
        ("s ilike 'ä%'", "ilike with letters beyond ASCII stays on pandas"),
        ("s ilike 'a' escape 'ä'", "ilike with letters beyond ASCII stays on pandas"),
        ("s ilike 'a' + '%'", "ilike runs on DuckDB only with its pattern written as a plain"),
        ("nullif(t, t) is null", "datetimes do not run on DuckDB"),
    ],
)
def test_what_duckdb_computes_differently_is_not_lowered_and_says_why(text, reason):
    with pytest.raises(NotLowerable, match=reason):
        to_sql(text, SCHEMA)


def test_a_datetime_may_still_be_tested_for_null(con):
    frame = pd.DataFrame({"t": pd.to_datetime(["2024-01-01", None])})
    assert_same(con, "t is null", frame)
    assert_same(con, "t is not null and true", frame)


# --- the same values, edge by edge -----------------------------------------------------------

EDGES = pd.DataFrame(
    {
        "i": pd.array([BIGGEST, SMALLEST, -7, 0, None, 3], dtype="Int64"),
        "f": [np.inf, -np.inf, -7.5, 0.0, np.nan, -0.0],
        "s": [" \u3000x\u00a0\t", "ß ǆ İ", "2024-02-29T10:00", "0000-01-01", None, "2024-02-30"],
        "d": pd.Series([dt.date(1, 1, 1), dt.date(9999, 12, 31), None, None, None, None]).astype(
            date_dtype()
        ),
    }
)


@pytest.mark.parametrize(
    "text",
    [
        "i + 1", "i - 1", "i * i", "-i", "abs(i)", "i % 3", "i % -3", "i % 0", "i % -1", "-7 % i",
        "i / 0", "i / 2", "7 / i", "i ** 2", "2 ** i", "(-8) ** 0.5", "f - f", "f * 0", "f / f",
        "f % 2", "f % (-2)", "2 % f", "i ** 0", "1 ** f", "null ** 0", "1e308 * 10", "f ** 0.5",
        "(f - f) is null", "f > 1",
        "f = f", "i = 9223372036854775807.0", "i < f", "i in (-7, 3.0, null)", "i not in (0)",
        "i in (9007199254740991.0, -7)", "f in (9007199254740991, 2)", "i in (f, 3)",
        "f between -8 and 0", "i not between 0 and f", "round(f)", "round(2.5)", "round(-0.5)",
        "round(i)", "round(i, 3)", "floor(f)", "ceil(-7.5)", "floor(i)", "strip(s)", "len(s)",
        "s < 'ß'", "contains(s, '')", "startswith(s, '20')", "endswith(s, '\\t')",
        "replace(s, '2', '22')", "substr(s, 2)", "substr(s, 3, 2)",
        "substr(s, 9223372036854775807, 9223372036854775807)", "concat(s, null, s)",
        "s + s", "date(s)", "year(date(s))", "month(d)", "day(d)", "date(d) = d",
        "coalesce(i, f, 0)", "coalesce(null, s)", "if(f > 0, i, null)", "if(null, 1, 2)",
        "not (f > 0)", "f > 0 and i > 0", "f > 0 or i > 0", "null", "null = null",
        "s like '%'", "s like ''", "s like '_'", "s not like '2024%'", "s like '%-%-_0%'",
        "s like '%\\t'", "s ilike 'SS%'", "s not ilike '%X%'", "s like 'ß _ %'",
        "s like '0000!-%' escape '!'", "s like null", "s ilike 'a' escape null",
        "s like 'a' + '%'", "case when f > 0 then i when f < 0 then -1 end",
        "case when f > 0 then i else f end", "case when null then 's' else s end",
        "case i when 3 then 'three' when -7.0 then 'minus' else s end",
        "case s when '0000-01-01' then 1 when null then 2 end", "case null when 1 then 2 end",
        "case when i > 0 then null end", "case f when i then d end",
        "nullif(i, 3)", "nullif(i, 3.0)", "nullif(f, 0)", "nullif(s, '2024-02-30')",
        "nullif(i, null)", "nullif(null, i)", "nullif(i, f)", "nullif(d, d)",
        "substring(s from 2)", "substring(s from 3 for 2)", "substring(s, 1, 0)",
    ],
)  # fmt: skip
def test_duckdb_matches_pandas_on_edge_cases(con, text):
    assert_same(con, text, EDGES)


def test_an_empty_frame_gives_an_empty_column_of_the_same_type(con):
    for text in ("i + 1", "strip(s)", "date(s)", "f > 0", "null"):
        assert_same(con, text, EDGES.iloc[:0])


def test_strip_and_len_agree_on_every_code_point(con):
    """Python's whitespace and code point counts, checked for all of Unicode at once."""
    codes = (code for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF)
    frame = pd.DataFrame({"s": pd.Series([f"{chr(c)}a{chr(c)}" for c in codes], dtype="str")})
    for text in ("strip(s)", "len(s)"):
        got = duckdb_values(con, to_sql(text, schema_of(frame)), frame)
        assert list(got) == list(evaluate(text, frame)), text


# --- random expressions over random frames ---------------------------------------------------

INTEGERS = st.integers(-1000, 1000) | st.sampled_from([0, SMALLEST, BIGGEST, -1]) | st.integers()
FLOATS = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.5, 2.5, -0.0])
TEXTS = st.text(max_size=8) | st.sampled_from(
    ["2024-01-31", "2024-02-30 x", " ", "ß", "0000-01-01"]
)
VALUES = {
    "integer": INTEGERS.filter(lambda value: SMALLEST <= value <= BIGGEST),
    "float": FLOATS,
    "string": TEXTS,
    "boolean": st.booleans(),
    "date": st.dates(),
    "datetime": st.datetimes(dt.datetime(1700, 1, 1), dt.datetime(2200, 1, 1)),
}
NULL_FREE = {"i", "b", "`odd\\name`"}  # numpy int64 and bool columns, as pandas often has


def column_data(name: str, type: str, rows: int) -> st.SearchStrategy:
    values = VALUES[type] if name in NULL_FREE else st.none() | VALUES[type]
    return st.lists(values, min_size=rows, max_size=rows).map(lambda data: as_column(data, type))


def as_column(data: list, type: str) -> pd.Series:
    dtype = {"integer": "Int64", "float": "float64", "string": "str", "boolean": "boolean"}
    if type == "date":
        return pd.Series(data, dtype=date_dtype())
    if type == "datetime":
        return pd.Series(pd.to_datetime(data), dtype="datetime64[us]")
    if not any(value is None for value in data) and type in ("integer", "boolean"):
        return pd.Series(data, dtype="int64" if type == "integer" else "bool")
    return pd.Series(data, dtype=dtype[type])


TYPE_OF = {name: type for type, names in COLUMNS.items() for name in names}


@st.composite
def cases(draw, expressions: st.SearchStrategy) -> tuple[str, pd.DataFrame]:
    """Expression text and a random frame of the columns it reads (drawing the others is slow)."""
    text = draw(expressions)
    rows = draw(st.integers(0, 6))
    names = sorted(referenced_columns(text) | {"b"})  # DuckDB needs a column to scan rows
    return text, pd.DataFrame(
        {name: draw(column_data(name, TYPE_OF[name], rows)) for name in names},
        index=pd.RangeIndex(rows),
    )


def assert_same_unless_refused(con, text: str, frame: pd.DataFrame) -> None:
    try:
        to_sql(text, schema_of(frame))
    except NotLowerable:
        return
    assert_same(con, text, frame)


@DIFFERENTIAL
@given(cases(st.one_of([typed(type, 3) for type in COLUMNS]).map(render)))
def test_random_expressions_give_the_same_values_on_duckdb_as_on_pandas(con, case):
    assert_same_unless_refused(con, *case)


TEXT_COLUMNS = st.sampled_from(["s", "u", "obj"]).map(lambda name: f"`{name}`")
LIKES = st.tuples(
    st.sampled_from(["like", "not like", "ilike", "not ilike"]),
    PATTERNS.map(lambda parts: literal(parts[0]) + ("" if parts[1] is None else " escape '!'")),
).map(" ".join)
TEXT_LITERALS = TEXTS.map(literal)
POSITIONS = st.integers(1, 12).map(str) | st.just("9223372036854775807")


STRING_CALLS = st.one_of(
    st.tuples(
        st.sampled_from(["contains", "startswith", "endswith"]), TEXT_COLUMNS, TEXT_LITERALS
    ).map(lambda xs: f"{xs[0]}({xs[1]}, {xs[2]})"),
    st.tuples(TEXT_COLUMNS, TEXT_LITERALS, TEXT_LITERALS).map(
        lambda xs: "replace({}, {}, {})".format(*xs)
    ),
    st.tuples(TEXT_COLUMNS, POSITIONS, st.none() | st.integers(0, 12).map(str)).map(
        lambda xs: (
            f"substr({xs[0]}, {xs[1]})" if xs[2] is None else "substr({}, {}, {})".format(*xs)
        )
    ),
    st.tuples(st.sampled_from(["strip", "len", "date"]), TEXT_COLUMNS).map(
        lambda xs: f"{xs[0]}({xs[1]})"
    ),
    st.tuples(
        TEXT_COLUMNS, st.sampled_from(["<", "=", ">=", "+"]), TEXT_LITERALS | TEXT_COLUMNS
    ).map(" ".join),
    st.lists(TEXT_COLUMNS | TEXT_LITERALS, min_size=1, max_size=4).map(
        lambda xs: f"concat({', '.join(xs)})"
    ),
    st.tuples(TEXT_COLUMNS, LIKES).map(" ".join),
)


@settings(DIFFERENTIAL, max_examples=300)
@given(cases(STRING_CALLS))
def test_random_string_functions_give_the_same_values_on_duckdb_as_on_pandas(con, case):
    assert_same_unless_refused(con, *case)


LIKE_TEXTS = st.text(alphabet="aAbß%_!\\\n\u0130\u0131\u017f\u212a.*", max_size=6)


@settings(DIFFERENTIAL, max_examples=60)
@given(LIKE_TEXTS, LIKES)
def test_like_patterns_match_the_same_texts_on_duckdb_as_on_pandas(con, text, like):
    """Wildcards, escapes, regex metacharacters, backslashes, newlines and letters whose case
    maps oddly (dotted and dotless i, long s, the Kelvin sign), in the text and the pattern."""
    frame = pd.DataFrame({"s": pd.Series([text, None, text.upper()], dtype="str")})
    assert_same_unless_refused(con, f"s {like}", frame)


def test_a_power_of_a_null_is_null_on_both_engines(con):
    """numpy says `nan ** 0` and `1 ** nan` are 1; the language says null, as for all arithmetic."""
    frame = pd.DataFrame({"i": pd.array([None, 2], dtype="Int64")})
    for text in ("i ** 0", "1 ** i", "null ** 0"):
        assert pd.isna(evaluate(text, frame).iloc[0])
        assert_same(con, text, frame)
