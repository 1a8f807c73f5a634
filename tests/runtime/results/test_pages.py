"""Paging, sorting, filtering and summarising one stored result (runtime/results/pages.py)."""

from __future__ import annotations

import datetime

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from runtime.results import pages
from runtime.results.pages import ResultQueryError, ResultTimeout, page, stats


@pytest.fixture
def result(tmp_path):
    """Six rows with nulls, NaN, unicode, dates, bytes, a huge integer and an awkward name."""
    table = pa.table(
        {
            "id": pa.array([1, 2, 3, 4, 5, 6], pa.int64()),
            "amount": [10.5, float("nan"), None, -2.0, 7.25, 10.5],
            'city "x"': ["Zürich", None, "東京", "Zürich", "Ålesund", "a'b"],
            "day": pa.array(
                [datetime.date(2024, 1, 2), None, datetime.date(1, 1, 1), None, None, None],
                pa.date32(),
            ),
            "blob": pa.array([b"\x00\xff", None, b"ab", None, None, None], pa.binary()),
            "big": pa.array([2**60, None, 1, 2, 3, 4], pa.int64()),
        }
    )
    path = tmp_path / "result.parquet"
    pq.write_table(table, path)
    return path


def test_a_page_holds_the_rows_asked_for_in_file_order_with_the_total(result):
    answer = page(result, offset=2, limit=3)
    assert [row[0] for row in answer.rows] == [3, 4, 5]
    assert answer.total_rows == 6
    assert [column["name"] for column in answer.columns] == [
        "id", "amount", 'city "x"', "day", "blob", "big"
    ]  # fmt: skip
    assert [column["type"] for column in answer.columns] == [
        "integer", "float", "string", "date", "binary", "integer"
    ]  # fmt: skip


def test_cells_are_json_safe(result):
    first, second = page(result, 0, 2).rows
    assert first == [1, 10.5, "Zürich", "2024-01-02T00:00:00", "0x00ff", str(2**60)]
    assert second == [2, None, None, None, None, None]  # NaN is null, as the engine holds it


def test_sorting_descending_puts_nulls_last_and_keeps_ties_in_file_order(result):
    rows = page(result, 0, 10, sort="-amount").rows
    assert [row[0] for row in rows] == [1, 6, 5, 4, 2, 3]  # NaN is null: last, as null is
    assert [row[0] for row in page(result, 0, 10, sort="amount").rows] == [4, 5, 1, 6, 2, 3]


def test_sorting_by_a_quoted_unicode_column(result):
    rows = page(result, 0, 10, sort='city "x"').rows
    assert [row[2] for row in rows] == ["Zürich", "Zürich", "a'b", "Ålesund", "東京", None]


def test_a_filter_in_the_pipeline_language_counts_only_its_rows(result):
    answer = page(result, 0, 1, filter="amount > 5")
    assert answer.total_rows == 3
    assert answer.rows[0][0] == 1


def test_a_filter_on_a_quoted_column_and_unicode_text_with_quotes(result):
    found = page(result, 0, 10, filter=r"""`city "x"` in ('Zürich', 'a\'b')""")
    assert [row[0] for row in found.rows] == [1, 4, 6]
    found = page(result, 0, 10, filter="big > 3 or big < 2")
    assert [row[0] for row in found.rows] == [1, 3, 6]


def test_a_filter_that_keeps_nothing_gives_an_empty_page(result):
    answer = page(result, 0, 10, filter="id > 100")
    assert answer.rows == [] and answer.total_rows == 0


def test_an_offset_past_the_end_gives_an_empty_page_without_reading(result):
    answer = page(result, offset=10**15, limit=10)
    assert answer.rows == [] and answer.total_rows == 6


def test_an_empty_result_has_columns_and_no_rows(tmp_path):
    path = tmp_path / "empty.parquet"
    pq.write_table(pa.table({"a": pa.array([], pa.int64()), "b": pa.array([], pa.string())}), path)
    answer = page(path, 0, 10)
    assert answer.rows == [] and answer.total_rows == 0
    assert [item.to_json()["count"] for item in stats(path)] == [0, 0]
    assert [item.histogram for item in stats(path)] == [[], []]


@pytest.mark.parametrize(
    ("request_", "field", "message"),
    [
        ({"limit": 0}, "limit", "limit must be between 1 and 1000"),
        ({"limit": 1001}, "limit", "limit must be between 1 and 1000"),
        ({"offset": -1}, "offset", "offset must be 0 or more"),
        ({"sort": "nope"}, "sort", "there is no column 'nope'"),
        ({"sort": "-"}, "sort", "there is no column ''"),
        ({"filter": "nope > 1"}, "filter", "unknown column 'nope'"),
        ({"filter": "1; ATTACH 'x.db'"}, "filter", "unexpected character ';'"),
        ({"filter": "id > 1) UNION SELECT 1 --"}, "filter", "filter: "),
        ({"filter": "city = 'a"}, "filter", "filter: "),
        ({"filter": "amount +"}, "filter", "filter: "),
        ({"filter": "id + 1"}, "filter", "filter: "),
        ({"filter": "blob = 'x'"}, "filter", "unknown column 'blob'"),
        ({"filter": " or ".join(["id = 1"] * 2000)}, "filter", "too long"),
        ({"filter": "(" * 5000 + "id" + ")" * 5000}, "filter", "filter: "),
    ],
    ids=[
        "no-rows", "too-many-rows", "negative-offset", "unknown-sort", "bare-minus",
        "unknown-column", "attach", "union", "open-quote", "dangling", "not-a-condition",
        "binary-column", "huge", "deep",
    ],
)  # fmt: skip
def test_a_bad_request_is_refused_naming_its_field(result, request_, field, message):
    arguments = {"offset": 0, "limit": 10, **request_}
    with pytest.raises(ResultQueryError, match=message) as refused:
        page(result, **arguments)
    assert refused.value.field == field


def test_a_column_name_quote_cannot_break_out_of_its_identifier(tmp_path):
    path = tmp_path / "quotes.parquet"
    pq.write_table(pa.table({'a"; DROP TABLE x; --': [2, 1]}), path)
    assert page(path, 0, 10, sort='-a"; DROP TABLE x; --').rows == [[2], [1]]
    assert stats(path)[0].max == 2


def test_a_stored_file_that_is_not_parquet_is_refused(tmp_path):
    path = tmp_path / "broken.parquet"
    path.write_bytes(b"not parquet")
    with pytest.raises(ResultQueryError, match="cannot be read as Parquet"):
        page(path, 0, 10)


def test_a_slow_query_is_stopped_past_its_time_limit(tmp_path):
    path = tmp_path / "many.parquet"
    pq.write_table(pa.table({"n": pa.array(range(3_000_000), pa.int64())}), path)
    with pytest.raises(ResultTimeout, match=r"took longer than 0\.001 s"):
        stats(path, timeout_s=0.001)


def test_statistics_count_nulls_distinct_values_and_ranges(result):
    found = {item.name: item for item in stats(result)}
    assert set(found) == {"id", "amount", 'city "x"', "day", "big"}  # bytes: no statistics
    amount = found["amount"]
    assert (amount.count, amount.nulls, amount.distinct) == (4, 2, 3)  # NaN counts as null
    assert (amount.min, amount.max) == (-2.0, 10.5)
    city = found['city "x"']
    assert (city.count, city.nulls, city.distinct, city.min) == (5, 1, 4, "Zürich")
    assert city.histogram[0] == {"value": "Zürich", "count": 2}
    assert found["day"].min == "0001-01-01" and found["day"].max == "2024-01-02"
    assert found["big"].max == str(2**60)
    assert not amount.distinct_estimated


def test_a_numeric_histogram_has_equal_width_bins_covering_every_value(result):
    bins = {item.name: item for item in stats(result)}["amount"].histogram
    assert len(bins) == pages.BINS
    assert bins[0]["low"] == -2.0 and bins[-1]["high"] == 10.5
    assert sum(item["count"] for item in bins) == 4
    assert bins[-1]["count"] == 2  # the maximum falls in the last bin


def test_a_column_of_one_value_has_one_bin(tmp_path):
    path = tmp_path / "same.parquet"
    pq.write_table(pa.table({"n": [5, 5, None]}), path)
    assert stats(path)[0].histogram == [{"low": 5, "high": 5, "count": 2}]


def test_statistics_follow_the_filter(result):
    found = {item.name: item for item in stats(result, filter="id <= 2")}
    assert found["id"].count == 2 and found["id"].max == 2
    assert found["amount"].nulls == 1


def test_a_column_of_unique_text_lists_no_frequent_values(tmp_path, monkeypatch):
    monkeypatch.setattr(pages, "TOP_DISTINCT", 3)
    path = tmp_path / "unique.parquet"
    pq.write_table(pa.table({"s": ["a", "b", "c", "d"]}), path)
    assert stats(path)[0].histogram == []


def test_distinct_values_of_a_big_result_are_estimated(tmp_path, monkeypatch):
    monkeypatch.setattr(pages, "EXACT_DISTINCT_ROWS", 2)
    path = tmp_path / "big.parquet"
    pq.write_table(pa.table({"s": ["a", "b", "c", "a"]}), path)
    found = stats(path)[0]
    assert found.distinct_estimated and found.distinct == 3


def test_integers_fall_in_bins_of_whole_numbers(tmp_path):
    path = tmp_path / "ages.parquet"
    pq.write_table(pa.table({"age": [*range(10, 100), None]}), path)
    bins = stats(path)[0].histogram
    assert [(item["low"], item["high"]) for item in bins] == [
        (10 + 9 * index, 18 + 9 * index) for index in range(10)
    ]
    assert [item["count"] for item in bins] == [9] * 10


def test_integer_bins_over_a_range_past_64_bits_count_every_value(result):
    bins = {item.name: item for item in stats(result)}["big"].histogram
    assert sum(item["count"] for item in bins) == 5
    assert bins[0]["low"] == 1 and bins[-1]["high"] == str(2**60)
    assert bins[0]["count"] == 4 and bins[-1]["count"] == 1


def test_decimals_duckdb_wrote_have_exact_ranges_and_equal_width_bins(tmp_path):
    path = tmp_path / "money.parquet"
    duckdb.execute(
        "COPY (SELECT (i * 1.07)::DECIMAL(15,2) AS price, "
        f"(i * '{10**35}'::HUGEINT)::DECIMAL(38,0) AS wide FROM range(101) t(i) "
        f"UNION ALL SELECT NULL, NULL) TO '{path}' (FORMAT parquet)"
    )
    price, wide = stats(path)
    assert (price.count, price.nulls, price.min, price.max) == (101, 1, "0.00", "107.00")
    assert [(item["low"], item["high"]) for item in price.histogram[:2]] == [
        ("0.00", "10.70"),
        ("10.70", "21.40"),
    ]
    assert [item["count"] for item in price.histogram] == [10] * 9 + [11]
    assert wide.max == str(10**37) and wide.histogram[-1]["high"] == wide.max
    assert sum(item["count"] for item in wide.histogram) == 101  # edges found in floats
