"""Parquet files other engines wrote (DuckDB's COPY, Polars, pyarrow) read alike on DuckDB and
on pandas, type by type; a column DuckDB cannot read as pandas does keeps the segment on
pandas, with a message naming the column and why."""

from __future__ import annotations

import datetime as dt
import decimal
import math

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from runtime.errors import NotLowerable
from runtime.operators.file_common import conform_table
from runtime.tables.frames import to_pandas
from tests.runtime.backends.both import Step, assert_same, run_duckdb, run_pandas, write_both_ways
from tests.runtime.backends.test_duckdb_parquet_outputs import assert_parquet_alike, writer

DUCKDB_ROWS = """
    SELECT * FROM (VALUES
        (1, 12.34::DECIMAL(15,2), 'Zoë', DATE '2020-01-02',
         TIMESTAMPTZ '2020-01-02 03:04:05.123456+00', TIME '12:34:56.5', INTERVAL 3 DAY,
         '\\xAA\\x41'::BLOB, [1, 2], {'a': 1, 'b': 'x'}, MAP {'k': 1}),
        (2, -0.05::DECIMAL(15,2), NULL, NULL, NULL, NULL, NULL, 'text'::BLOB, NULL, NULL, NULL),
        (3, NULL, 'b', DATE '1969-12-31', TIMESTAMPTZ '1960-06-01 00:00:00+00', TIME '00:00:00',
         INTERVAL 1 MONTH, NULL, [], {'a': NULL, 'b': NULL}, MAP {})
    ) AS t(id, price, name, day, seen, clock, wait, raw, tags, point, counts)
"""
LOWERED = ["id", "price", "name", "day", "seen", "clock", "raw", "point", "tags", "counts"]


@pytest.fixture
def root(tmp_path):
    area = tmp_path / "area"
    (area / "data").mkdir(parents=True)
    return area


def read(path: str, **params) -> list[Step]:
    return [Step("read", "parquet_input", {"path": path, **params})]


def refusal(steps, root) -> str:
    _, schemas = run_pandas(steps, {}, root)  # pandas reads the file whole
    with pytest.raises(NotLowerable) as refused:
        run_duckdb(steps, {}, schemas, root, [steps[-1].id])
    return str(refused.value)


def test_a_file_duckdb_copied_reads_alike_column_by_column(root):
    duckdb.execute(f"COPY ({DUCKDB_ROWS}) TO '{root / 'data' / 'duck.parquet'}' (FORMAT parquet)")
    outputs = assert_same(read("data/duck.parquet", columns=LOWERED), {}, root, ordered=["read"])
    frame = outputs["read"]
    assert frame.columns.tolist() == [*LOWERED[:7], "point.a", "point.b", "tags", "counts"]
    assert str(frame["price"].dtype) == "decimal128(15, 2)[pyarrow]"
    assert frame["price"].tolist()[:2] == [decimal.Decimal("12.34"), decimal.Decimal("-0.05")]
    assert str(frame["seen"].dtype) == "datetime64[us, UTC]"
    assert frame["clock"].tolist()[0] == "12:34:56.500000"
    assert frame["raw"].tolist()[:2] == ["0xaa41", "text"]
    assert frame["tags"].tolist()[0] == "[1,2]" and frame["counts"].tolist()[0] == '{"k":1}'


INTERVALS = ("3 days", "1 month", "1 year 2 months 3 days 04:05:06.789", "36 hours", "1.5 s")


def test_intervals_duckdb_wrote_read_alike_as_duckdbs_text(root):
    rows = " UNION ALL ".join(
        f"SELECT {i} AS id, INTERVAL '{text}' AS wait" for i, text in enumerate(INTERVALS)
    )
    duckdb.execute(
        f"COPY ({rows} UNION ALL SELECT 9, NULL) TO '{root / 'data' / 'waits.parquet'}' "
        "(FORMAT parquet)"
    )
    outputs = assert_same(read("data/waits.parquet"), {}, root, ordered=["read"])
    expected = duckdb.execute(
        "SELECT CAST(wait AS VARCHAR) FROM read_parquet(?)", [str(root / "data" / "waits.parquet")]
    ).fetchall()
    assert outputs["read"]["wait"].tolist()[:-1] == [text for (text,) in expected[:-1]]
    assert outputs["read"]["wait"].tolist()[2:4] == [
        "1 year 2 months 3 days 04:05:06.789",
        "36:00:00",
    ]


@pytest.mark.parametrize("operator", ["csv_output", "parquet_output"])
def test_intervals_and_durations_are_written_alike_by_both(tmp_path, operator):
    for folder in ("pandas", "duckdb", "duckdb-schemas"):
        (tmp_path / folder / "data").mkdir(parents=True)
        duckdb.execute(
            f"COPY ({DUCKDB_ROWS}) TO '{tmp_path / folder / 'data' / 'duck.parquet'}' "
            "(FORMAT parquet)"
        )
    ending = "parquet" if operator == "parquet_output" else "csv"
    write = Step("write", operator, {"path": f"out/result.{ending}"}, {"in": "read"})
    steps = read("data/duck.parquet", columns=["id", "wait"])
    on_pandas, on_duckdb, _ = write_both_ways(steps, write, {}, tmp_path)
    if ending == "csv":
        assert on_pandas.read_bytes() == on_duckdb.read_bytes()
    else:  # DuckDB's COPY writes it (sinks.py `parquet_copy`)
        assert writer(on_duckdb) == "DuckDB"
        assert_parquet_alike(on_pandas, on_duckdb)


def test_a_file_polars_wrote_reads_alike(root):
    frame = pl.DataFrame(
        {
            "name": ["a", None, "ä"],
            "price": [decimal.Decimal("1.10"), None, decimal.Decimal("2.05")],
            "seen": [dt.datetime(2020, 1, 1, 12, tzinfo=dt.UTC), None, dt.datetime(2021, 1, 1)],
            "took": [dt.timedelta(seconds=1), None, dt.timedelta(days=1)],
            "tags": [["a", "é\n"], None, []],
        },
        schema_overrides={"price": pl.Decimal(10, 2), "seen": pl.Datetime("us", "UTC")},
    )
    frame.write_parquet(root / "data" / "polars.parquet")
    outputs = assert_same(read("data/polars.parquet"), {}, root, ordered=["read"])
    assert outputs["read"]["took"].tolist()[0] == "1000000"  # microseconds, as Arrow writes them
    assert str(outputs["read"]["price"].dtype) == "decimal128(10, 2)[pyarrow]"
    assert outputs["read"]["tags"].tolist()[0] == '["a","é\\n"]'


def test_polars_lists_of_floats_stay_on_pandas(root):
    pl.DataFrame({"tags": [[1.5, 2.0]]}).write_parquet(root / "data" / "polars.parquet")
    message = refusal(read("data/polars.parquet", columns=["tags"]), root)
    assert "column 'tags'" in message and "floats" in message


INSTANTS = [dt.datetime(2020, 1, 1, 0, 30), None, dt.datetime(2020, 7, 1, 12, 0, 0, 250_000)]


def _zoned_files(folder, zone: str, unit: str = "us") -> None:
    """A file Polars wrote in `zone` (in `unit`) and one pyarrow wrote (nanoseconds)."""
    (folder / "data").mkdir(parents=True, exist_ok=True)
    pl.DataFrame(
        {"id": [1, 2, 3], "seen": INSTANTS}, schema_overrides={"seen": pl.Datetime(unit, zone)}
    ).write_parquet(folder / "data" / "polars.parquet")
    ticks = pa.array([1_700_000_000_123_456_789, None, 0], pa.timestamp("ns", zone))
    pq.write_table(pa.table({"id": [1, 2, 3], "at": ticks}), folder / "data" / "arrow.parquet")


@pytest.mark.parametrize("unit", ["ms", "us"])  # zoned milliseconds are read as microseconds
@pytest.mark.parametrize("zone", ["Europe/Paris", "America/New_York", "Asia/Kolkata", "UTC"])
def test_datetimes_in_a_zone_read_sort_and_aggregate_alike_in_that_zone(root, zone, unit):
    _zoned_files(root, zone, unit)
    steps = [
        *read("data/polars.parquet"),
        Step("s", "sort", {"by": [{"column": "seen", "descending": True}]}, {"in": "read"}),
        Step(
            "last",
            "aggregate",
            {"aggregations": [{"column": "seen", "function": f} for f in ("max", "min")]},
            {"in": "read"},
        ),
        Step("ns", "parquet_input", {"path": "data/arrow.parquet"}),
    ]
    outputs = assert_same(steps, {}, root, exits=["s", "last", "ns"], ordered=["s"])
    assert str(outputs["s"]["seen"].dtype) == f"datetime64[us, {zone}]"
    assert str(outputs["ns"]["at"].dtype) == f"datetime64[ns, {zone}]"
    # Polars takes the naive values given as instants in UTC
    assert outputs["last"]["seen_max"].tolist()[0].tz_convert(None) == pd.Timestamp(INSTANTS[2])


@pytest.mark.parametrize("operator", ["csv_output", "parquet_output"])
@pytest.mark.parametrize("zone", ["Europe/Paris", "UTC"])
def test_datetimes_in_a_zone_are_written_alike_with_their_offsets(tmp_path, operator, zone):
    for folder in ("pandas", "duckdb", "duckdb-schemas"):
        _zoned_files(tmp_path / folder, zone)
    ending = "parquet" if operator == "parquet_output" else "csv"
    write = Step("write", operator, {"path": f"out/result.{ending}"}, {"in": "read"})
    on_pandas, on_duckdb, _ = write_both_ways(read("data/polars.parquet"), write, {}, tmp_path)
    assert on_pandas.read_bytes() == on_duckdb.read_bytes()  # pyarrow writes zoned datetimes
    if ending == "csv" and zone == "Europe/Paris":
        assert on_duckdb.read_text().splitlines()[1:] == [
            "1,2020-01-01 01:30:00.000+01:00",
            "2,",
            "3,2020-07-01 14:00:00.250+02:00",
        ]


def write_two_zones(path) -> None:
    """A Parquet file by Polars whose two datetime columns are in two zones."""
    pl.DataFrame(
        {"paris": [dt.datetime(2020, 1, 1)], "york": [dt.datetime(2020, 1, 1)]},
        schema_overrides={
            "paris": pl.Datetime("us", "Europe/Paris"),
            "york": pl.Datetime("us", "America/New_York"),
        },
    ).write_parquet(path)


def test_datetimes_of_two_zones_in_one_segment_run_it_on_pandas(root):
    write_two_zones(root / "data" / "polars.parquet")
    message = refusal(read("data/polars.parquet"), root)
    assert message == (
        "datetimes in the zones America/New_York, Europe/Paris meet in one segment, "
        "whose DuckDB session keeps one"
    )


UNITS = ("s", "ms", "us", "ns")


def _pyarrow_table() -> pa.Table:
    ticks = [1, None, 1_700_000_000, -5]
    return pa.table(
        {
            "kind": pa.array(["a", "b", None, "a"]).dictionary_encode(),
            "view": pa.array(["x", None, "", "é"], pa.string_view()),
            "large": pa.array(["x", None, "", "é"], pa.large_string()),
            "day": pa.array(
                [dt.date(2020, 1, 1), None, dt.date(1969, 12, 31), dt.date(2000, 2, 29)],
                pa.date64(),
            ),
            **{f"at_{unit}": pa.array(ticks, pa.timestamp(unit)) for unit in UNITS},
            **{f"utc_{unit}": pa.array(ticks, pa.timestamp(unit, "UTC")) for unit in UNITS},
            "clock_s": pa.array([1, None, 3600, 86399], pa.time32("s")),
            "clock_ms": pa.array([1, None, 3600, 86_399_999], pa.time32("ms")),
            "clock_us": pa.array([1, None, 3600, 86_399_999_999], pa.time64("us")),
            "took_s": pa.array([1, None, 3600, -2], pa.duration("s")),
            "took_ns": pa.array([1, None, 3600, -2], pa.duration("ns")),
            "raw": pa.array([b"ab", None, b"\xff\x00", b""], pa.binary()),
            "price": pa.array(
                [decimal.Decimal("1.10"), None, decimal.Decimal("-2.05"), decimal.Decimal("0")],
                pa.decimal128(15, 2),
            ),
            "flag": pa.array([True, None, False, True]),
        }
    )


def test_a_file_pyarrow_wrote_with_each_type_reads_alike(root):
    pq.write_table(_pyarrow_table(), root / "data" / "arrow.parquet")
    outputs = assert_same(read("data/arrow.parquet"), {}, root, ordered=["read"])
    frame = outputs["read"]
    assert str(frame["utc_ns"].dtype) == "datetime64[ns, UTC]"
    assert str(frame["at_s"].dtype) == "datetime64[ms]"  # Parquet stores seconds as milliseconds
    assert str(frame["utc_s"].dtype) == "datetime64[us, UTC]"  # zoned: as DuckDB keeps them
    assert frame["raw"].tolist()[::2] == ["ab", "0xff00"]


@pytest.mark.parametrize(
    ("kind", "why"),
    [
        (pa.timestamp("us", "+01:00"), "no zone name DuckDB knows"),
        (pa.time64("ns"), "time64[ns]"),
        (pa.binary(3), "a UUID"),
        (pa.list_(pa.float64()), "JSON text"),
        (pa.map_(pa.string(), pa.date32()), "JSON text"),
    ],
)
def test_pyarrow_types_duckdb_reads_otherwise_stay_on_pandas(root, kind, why):
    pq.write_table(pa.table({"x": pa.array([None], kind)}), root / "data" / "arrow.parquet")
    message = refusal(read("data/arrow.parquet"), root)
    assert message.startswith("column 'x' of 'data/arrow.parquet' ") and why in message


def test_decimals_filter_aggregate_and_sort_exactly_on_both(root):
    duckdb.execute(
        "COPY (SELECT (i % 3)::VARCHAR AS k, (i * 1.07)::DECIMAL(15,2) AS price, "
        "(i % 11 / 100)::DECIMAL(15,2) AS discount FROM range(2000) t(i)) "
        f"TO '{root / 'data' / 'money.parquet'}' (FORMAT parquet)"
    )
    functions = ("sum", "mean", "min", "max", "median", "std", "count", "nunique")
    steps = [
        *read("data/money.parquet"),
        Step("f", "filter", {"condition": "discount between 0.05 and 0.07"}, {"in": "read"}),
        Step(
            "by_k",
            "aggregate",
            {
                "group_by": ["k", "discount"],
                "aggregations": [{"column": "price", "function": f} for f in functions],
            },
            {"in": "f"},
        ),
        Step(
            "all",
            "aggregate",
            {"aggregations": [{"column": "price", "function": f} for f in functions[:4]]},
            {"in": "f"},
        ),
        Step("s", "sort", {"by": [{"column": "price", "descending": True}]}, {"in": "f"}),
    ]
    outputs = assert_same(steps, {}, root, exits=["by_k", "all", "s"], ordered=["by_k", "s"])
    expected = duckdb.execute(
        "SELECT SUM(price) FROM read_parquet(?) WHERE discount BETWEEN 0.05 AND 0.07",
        [str(root / "data" / "money.parquet")],
    ).fetchall()[0][0]
    assert outputs["all"]["price_sum"].tolist() == [expected]
    assert str(outputs["all"]["price_sum"].dtype) == "decimal128(38, 2)[pyarrow]"
    assert str(outputs["by_k"]["price_mean"].dtype) == "float64"


def test_a_mean_of_decimals_is_their_exact_sum_over_their_count_on_both(root):
    """Past 15 digits floats lose what a decimal holds: 10^17 + 0.01 is 10^17 as a float, and
    a mean of floats would be 0.02 / 3. The exact sum (0.03) over the count is 0.01."""
    duckdb.execute(
        "COPY (SELECT * FROM (VALUES ('a', 100000000000000000.01::DECIMAL(38,2)), "
        "('a', -100000000000000000::DECIMAL(38,2)), ('a', 0.02::DECIMAL(38,2)), "
        "('b', NULL::DECIMAL(38,2))) t(k, price)) "
        f"TO '{root / 'data' / 'big.parquet'}' (FORMAT parquet)"
    )
    mean = {"column": "price", "function": "mean"}
    steps = [
        *read("data/big.parquet"),
        Step("by_k", "aggregate", {"group_by": ["k"], "aggregations": [mean]}, {"in": "read"}),
        Step("all", "aggregate", {"aggregations": [mean]}, {"in": "read"}),
    ]
    outputs = assert_same(steps, {}, root, exits=["by_k", "all"], ordered=["by_k"])
    assert outputs["all"]["price_mean"].tolist() == [0.01]
    by_k = outputs["by_k"]["price_mean"]
    assert by_k[0] == 0.01 and math.isnan(by_k[1])  # no values: null


@pytest.mark.parametrize("operator", ["parquet_output", "csv_output"])
def test_decimals_are_written_alike_by_both(root, operator):
    """A decimal frame (as parquet_input gives it) enters a DuckDB segment and is written."""
    tiny = pa.array([decimal.Decimal("1E-10"), decimal.Decimal(0), None, 1], pa.decimal128(38, 10))
    table = _pyarrow_table().select(["price", "kind"]).append_column("tiny", tiny)
    prices = to_pandas(conform_table(table))
    ending = "parquet" if operator == "parquet_output" else "csv"
    write = Step("write", operator, {"path": f"out/result.{ending}"}, {"in": "prices"})
    on_pandas, on_duckdb, _ = write_both_ways([], write, {"prices": prices}, root)
    if ending == "csv":
        assert on_pandas.read_text() == on_duckdb.read_text()
        assert "1.10" in on_duckdb.read_text() and ",0.0000000001\n" in on_duckdb.read_text()
    else:
        assert writer(on_duckdb) == "DuckDB"
        assert_parquet_alike(on_pandas, on_duckdb)


def test_decimal_join_keys_match_exact_values_on_both(root):
    duckdb.execute(
        "COPY (SELECT i AS id, (i % 7 / 100)::DECIMAL(15,2) AS rate FROM range(50) t(i)) "
        f"TO '{root / 'data' / 'rates.parquet'}' (FORMAT parquet)"
    )
    duckdb.execute(
        "COPY (SELECT (i / 100)::DECIMAL(15,2) AS rate, 'r' || i AS label FROM range(5) t(i)) "
        f"TO '{root / 'data' / 'labels.parquet'}' (FORMAT parquet)"
    )
    steps = [
        Step("rates", "parquet_input", {"path": "data/rates.parquet"}),
        Step("labels", "parquet_input", {"path": "data/labels.parquet"}),
        Step(
            "joined",
            "join",
            {"how": "left", "left_on": ["rate"], "right_on": ["rate"]},
            {"left": "rates", "right": "labels"},
        ),
    ]
    outputs = assert_same(steps, {}, root, ordered=["joined"])
    assert outputs["joined"]["label"].notna().sum() == sum(1 for i in range(50) if i % 7 < 5)


def test_a_union_of_decimals_of_differing_precision_and_scale_is_typed_as_duckdb_types_it(root):
    for name, kind in (("a", "DECIMAL(14,2)"), ("b", "DECIMAL(10,4)")):
        duckdb.execute(
            f"COPY (SELECT i AS id, (i * 1.25)::{kind} AS price FROM range(3) t(i)) "
            f"TO '{root / 'data' / f'{name}.parquet'}' (FORMAT parquet)"
        )
    duckdb.execute(f"COPY (SELECT 7 AS id) TO '{root / 'data' / 'c.parquet'}' (FORMAT parquet)")
    steps = [
        *(Step(name, "parquet_input", {"path": f"data/{name}.parquet"}) for name in "abc"),
        Step("all", "union", {}, {"in": ["a", "b", "c"]}),
    ]
    outputs = assert_same(steps, {}, root)
    assert str(outputs["all"]["price"].dtype) == "decimal128(16, 4)[pyarrow]"


@pytest.mark.parametrize("how", ["right", "outer"])
def test_a_right_or_outer_join_on_a_decimal_key_stays_on_pandas(root, how):
    duckdb.execute(
        "COPY (SELECT (i / 100)::DECIMAL(10,3) AS rate FROM range(3) t(i)) "
        f"TO '{root / 'data' / 'rates.parquet'}' (FORMAT parquet)"
    )
    steps = [
        Step("a", "parquet_input", {"path": "data/rates.parquet"}),
        Step("b", "parquet_input", {"path": "data/rates.parquet"}),
        Step(
            "j",
            "join",
            {"how": how, "left_on": "rate", "right_on": "rate"},
            {"left": "a", "right": "b"},
        ),
    ]
    assert "the decimal key 'rate'" in refusal(steps, root)


def test_q6s_filter_and_a_decimal_revenue_sum_exactly_as_duckdb_on_both(root):
    duckdb.execute(
        "COPY (SELECT (i * 1.07)::DECIMAL(15,2) AS price, (i % 11 / 100)::DECIMAL(15,2) AS "
        "discount, (i % 9 / 100)::DECIMAL(15,2) AS tax FROM range(500) t(i)) "
        f"TO '{root / 'data' / 'money.parquet'}' (FORMAT parquet)"
    )
    revenue = "price * (1 - discount) * (1 + tax)"
    condition = "discount between 0.06 - 0.01 and 0.06 + 0.01"
    total = {"aggregations": [{"column": "r", "function": "sum"}]}
    steps = [
        *read("data/money.parquet"),
        Step("f", "filter", {"condition": condition}, {"in": "read"}),
        Step("t", "transform", {"mappings": [{"target": "r", "expression": revenue}]}, {"in": "f"}),
        Step("all", "aggregate", total, {"in": "t"}),
    ]
    outputs = assert_same(steps, {}, root, exits=["t", "all"])
    expected = duckdb.execute(
        f"SELECT SUM({revenue}), count(*) FROM read_parquet(?) WHERE {condition}",
        [str(root / "data" / "money.parquet")],
    ).fetchall()[0]
    assert outputs["all"]["r_sum"].tolist() == [expected[0]] and len(outputs["t"]) == expected[1]
    assert str(outputs["t"]["r"].dtype) == "decimal128(18, 6)[pyarrow]"
    assert set(outputs["t"]["discount"]) == {decimal.Decimal(f"0.0{d}") for d in (5, 6, 7)}
