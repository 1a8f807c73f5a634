"""`json_input` and `json_output`: arrays and JSON Lines, types, dates as ISO text, appends."""

from __future__ import annotations

import datetime as dt
import decimal
import json

import duckdb
import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from runtime.errors import NodeCancelled, OperatorError
from runtime.operators import json_files
from runtime.operators.file_common import conform_table
from runtime.operators.json_files import JsonInput, JsonOutput
from runtime.tables.frames import to_pandas
from runtime.tables.schema import date_dtype
from tests.runtime.operators.contract import OperatorContract, make_ctx
from tests.strategies import bounded, finite_floats, texts

EVERY_TYPE = pd.DataFrame(
    {
        "id": pd.array([1, None, 3], dtype="Int64"),
        "price": [1.5, None, -0.25],
        "name": pd.Series(["Ada", None, 'Zoë "Z" / 10'], dtype="str"),
        "paid": pd.array([True, None, False], dtype="boolean"),
        "day": pd.array([dt.date(2024, 1, 31), None, dt.date(1999, 12, 1)], dtype=date_dtype()),
        "at": pd.to_datetime(["2024-01-31 10:00:00.250", None, "2024-02-01"], format="ISO8601"),
    }
)
"""A column of every public type, each with a gap: what every file format must give back."""

PEOPLE_LINES = '{"id": 1, "name": "Ada"}\n{"id": null, "name": "Linus"}\n{"id": 3}\n'


class TestJsonInputContract(OperatorContract):
    operator_cls = JsonInput
    params = {"path": "people.jsonl", "lines": True}
    files = {"people.jsonl": PEOPLE_LINES}
    bad_params = [
        ({}, r"node\.params\.path: Path: required"),
        ({"path": "a.json", "lines": "maybe"}, r"params\.lines: JSON Lines: must be true or false"),
    ]


class TestJsonOutputContract(OperatorContract):
    operator_cls = JsonOutput
    params = {"path": "out/result.jsonl"}
    inputs = {"in": EVERY_TYPE}
    bad_params = [
        (
            {"path": "x.json", "mode": "merge"},
            r"params\.mode: When the file exists: must be one of 'overwrite'",
        ),
        ({"path": ""}, r"params\.path: Path: must not be empty"),
    ]


def read(tmp_path, content: str | bytes, lines: bool, **options) -> pd.DataFrame:
    path = tmp_path / "in.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    operator = JsonInput()
    ctx = make_ctx(operator, {"path": "in.json", "lines": lines}, tmp_path, **options)
    return operator.run(ctx, {})["out"]


def as_json(rows: list[dict], lines: bool) -> str:
    """`rows` as JSON Lines or as one array."""
    return "".join(json.dumps(row) + "\n" for row in rows) if lines else json.dumps(rows)


def write(tmp_path, frame: pd.DataFrame, **params):
    operator = JsonOutput()
    ctx = make_ctx(operator, {"path": "out/result.json", **params}, tmp_path)
    operator.run(ctx, {"in": frame})
    return ctx


def written(tmp_path) -> str:
    return (tmp_path / "out" / "result.json").read_text(encoding="utf-8")


def test_an_array_gives_the_union_of_the_keys_in_order_of_first_appearance(tmp_path):
    frame = read(tmp_path, '[{"a": 1, "b": "x"}, {"c": true, "a": 2}]', lines=False)
    assert frame.columns.tolist() == ["a", "b", "c"]
    assert frame["a"].tolist() == [1, 2]
    assert frame["b"].isna().tolist() == [False, True]


@pytest.mark.parametrize("lines", [True, False])
def test_integer_columns_stay_integers_even_with_gaps(tmp_path, lines):
    rows = [{"id": 1}, {"id": None}, {}, {"id": 4}]
    frame = read(tmp_path, as_json(rows, lines), lines=lines)
    assert str(frame["id"].dtype) == "Int64"
    assert frame["id"].isna().tolist() == [False, True, True, False]


@pytest.mark.parametrize("lines", [True, False])
def test_iso_text_is_read_as_dates_and_datetimes(tmp_path, lines):
    rows = [
        {"day": "2024-01-31", "at": "2024-01-31T10:00:00", "utc": "2024-01-31T10:00:00+01:00"},
        {"day": None, "at": "2024-02-01 11:30:00.5", "utc": "2024-01-31T10:00:00Z"},
    ]
    frame = read(tmp_path, as_json(rows, lines), lines=lines)
    assert str(frame["day"].dtype) == "date32[day][pyarrow]"
    assert frame["day"].tolist()[0] == dt.date(2024, 1, 31)
    assert frame["at"].tolist() == [
        pd.Timestamp("2024-01-31 10:00:00"), pd.Timestamp("2024-02-01 11:30:00.5")
    ]  # fmt: skip
    assert frame["utc"].tolist() == [
        pd.Timestamp("2024-01-31 09:00:00", tz="UTC"), pd.Timestamp("2024-01-31 10:00", tz="UTC")
    ]  # fmt: skip


def test_text_that_only_looks_like_dates_stays_text(tmp_path):
    frame = read(tmp_path, '{"a": "2024-02-30"}\n{"a": "2024-01-01"}\n', lines=True)
    assert frame["a"].tolist() == ["2024-02-30", "2024-01-01"]
    frame = read(tmp_path, '{"a": "2024-01-01"}\n{"a": "soon"}\n', lines=True)
    assert frame["a"].tolist() == ["2024-01-01", "soon"]


@pytest.mark.parametrize("lines", [True, False])
def test_nested_objects_become_columns_and_lists_their_json_text(tmp_path, lines):
    rows = [{"id": 1, "address": {"city": "Paris", "zip": "75001"}, "tags": ["a", "b"]}]
    frame = read(tmp_path, as_json(rows, lines), lines=lines)
    assert frame.columns.tolist() == ["id", "address.city", "address.zip", "tags"]
    assert frame["address.city"].tolist() == ["Paris"]
    assert json.loads(frame["tags"][0]) == ["a", "b"]


@pytest.mark.parametrize("lines", [True, False])
def test_a_column_mixing_numbers_and_text_is_read_as_text(tmp_path, lines):
    rows = [{"code": 1, "n": 1}, {"code": "A-2", "n": 2}]
    frame = read(tmp_path, as_json(rows, lines), lines=lines)
    assert frame["code"].tolist() == ["1", "A-2"]
    assert str(frame["n"].dtype) == "Int64"


def test_malformed_json_lines_name_the_file_and_the_line(tmp_path):
    with pytest.raises(
        OperatorError,
        match=r"cannot read 'in\.json' as JSON Lines: line 3: Expecting property name enclosed",
    ):
        read(tmp_path, '{"a": 1}\n\n{"a": 2,}\n', lines=True)


def test_a_line_that_is_not_an_object_is_named(tmp_path):
    with pytest.raises(OperatorError, match=r"line 2: expected an object \{...\}"):
        read(tmp_path, '{"a": 1}\n[2]\n', lines=True)


def test_an_array_read_as_json_lines_suggests_turning_lines_off(tmp_path):
    with pytest.raises(OperatorError, match="looks like one JSON array: turn 'JSON Lines' off"):
        read(tmp_path, '[\n{"a": 1},\n{"a": 2}\n]\n', lines=True)


def test_malformed_json_names_the_file_line_and_column(tmp_path):
    with pytest.raises(
        OperatorError,
        match=r"cannot read 'in\.json' as JSON: Expecting ',' delimiter at line 2, column 10",
    ):
        read(tmp_path, '[{"a": 1},\n {"a": 2 "b": 3}]', lines=False)


def test_json_lines_read_as_an_array_suggests_turning_lines_on(tmp_path):
    with pytest.raises(
        OperatorError, match=r"Extra data at line 2, column 1 .*turn 'JSON Lines' on"
    ):
        read(tmp_path, PEOPLE_LINES, lines=False)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"a": 1}', r"'in.json' does not hold a JSON array of objects"),
        ("[1, 2]", r"'in.json' holds ints, not objects"),
        ('[{"a": 1}, 2]', r"'in.json' mixes objects \{...\} with other values"),
        (b'["\xff"]', r"cannot read 'in.json' as JSON: it is not UTF-8 text"),
    ],
)
def test_anything_but_an_array_of_objects_is_refused(tmp_path, content, message):
    with pytest.raises(OperatorError, match=message):
        read(tmp_path, content, lines=False)


@pytest.mark.parametrize("lines", [True, False])
def test_an_empty_file_is_an_empty_table(tmp_path, lines):
    assert read(tmp_path, "", lines=lines).shape == (0, 0)


@pytest.mark.parametrize("lines", [True, False])
def test_the_row_limit_of_a_preview_is_honoured(tmp_path, lines):
    rows = [{"n": n} for n in range(1000)]
    assert read(tmp_path, as_json(rows, lines), lines=lines, row_limit=10)["n"].tolist() == list(
        range(10)
    )


def test_large_json_lines_stream_with_progress_and_stop_when_asked(tmp_path, monkeypatch):
    monkeypatch.setattr(json_files, "STREAM_ABOVE_BYTES", 0)
    monkeypatch.setattr(json_files, "BLOCK_BYTES", 1024)
    content = "".join(f'{{"n": {n}}}\n' for n in range(1000))
    events = []
    frame = read(tmp_path, content, lines=True, emit=lambda kind, **f: events.append(f["rows"]))
    assert frame["n"].tolist() == list(range(1000))
    assert events and events[0] < 1000
    operator = JsonInput()
    ctx = make_ctx(operator, {"path": "in.json", "lines": True}, tmp_path)
    ctx.stop()
    with pytest.raises(NodeCancelled):
        operator.run(ctx, {})


def test_a_line_longer_than_a_block_is_still_read(tmp_path, monkeypatch):
    monkeypatch.setattr(json_files, "BLOCK_BYTES", 64)
    rows = [{"n": 1, "text": "x" * 200}, {"n": 2, "text": "y"}]
    assert read(tmp_path, as_json(rows, True), lines=True)["n"].tolist() == [1, 2]


def test_the_schema_of_a_long_file_comes_from_a_sample_that_allows_nulls(tmp_path):
    (tmp_path / "in.json").write_text("".join(f'{{"n": {n}}}\n' for n in range(1500)))
    operator = JsonInput()
    ctx = make_ctx(operator, {"path": "in.json", "lines": True}, tmp_path)
    column = operator.output_schema(ctx, {})["out"].get("n")
    assert (column.type, column.nullable) == ("integer", True)


@pytest.mark.parametrize("lines", [True, False])
def test_what_is_written_reads_back_as_the_same_frame(tmp_path, lines):
    write(tmp_path, EVERY_TYPE, lines=lines)
    back = read(tmp_path, written(tmp_path).encode(), lines=lines)
    pd.testing.assert_frame_equal(back, EVERY_TYPE)


@st.composite
def frames(draw) -> pd.DataFrame:
    rows = draw(st.integers(min_value=1, max_value=6))

    def column(values):
        return draw(st.lists(st.one_of(st.none(), values), min_size=rows, max_size=rows))

    when = st.datetimes(dt.datetime(1900, 1, 1), dt.datetime(2100, 1, 1))
    words = texts(max_size=8).filter(lambda text: not text[:1].isdigit())
    return pd.DataFrame(
        {
            "i": pd.array(column(st.integers(-(2**53), 2**53)), dtype="Int64"),
            "f": pd.array(column(finite_floats), "float64"),
            "s": pd.Series(column(words), dtype="str"),
            "b": pd.array(column(st.booleans()), dtype="boolean"),
            "d": pd.array(column(st.dates(dt.date(1900, 1, 1))), dtype=date_dtype()),
            "t": pd.Series(column(when), dtype="datetime64[us]"),
        }
    )


@bounded(60, tolerate=[HealthCheck.function_scoped_fixture])
@given(frame=frames(), lines=st.booleans())
def test_any_frame_of_the_public_types_round_trips(tmp_path, frame, lines):
    write(tmp_path, frame, lines=lines)
    back = read(tmp_path, written(tmp_path).encode(), lines=lines)
    for name in frame.columns:  # a column of nulls only has no type to read back
        if frame[name].notna().any():
            pd.testing.assert_series_equal(back[name], frame[name], check_exact=True)


def test_json_lines_output_writes_iso_dates_nulls_and_exact_floats(tmp_path):
    frame = pd.DataFrame(
        {
            "x": [0.1 + 0.2, 2.0, float("nan")],
            "day": pd.array([dt.date(2024, 1, 31), None, None], dtype=date_dtype()),
            "at": pd.to_datetime(["2024-01-31 10:00", None, None]).tz_localize("Europe/Paris"),
            "note": pd.Series(['say "hi"\n', None, "a\\b"], dtype="str"),
        }
    )
    write(tmp_path, frame)
    assert written(tmp_path).splitlines() == [
        r'{"x":0.30000000000000004,"day":"2024-01-31","at":"2024-01-31T09:00:00Z",'
        r'"note":"say \"hi\"\n"}',
        '{"x":2.0,"day":null,"at":null,"note":null}',
        r'{"x":null,"day":null,"at":null,"note":"a\\b"}',
    ]


def test_output_creates_folders_and_reports_rows_path_and_bytes(tmp_path):
    ctx = write(tmp_path, pd.DataFrame({"a": [1, 2]}), lines=False)
    assert written(tmp_path) == '[{"a":1},{"a":2}]'
    assert ctx.metrics == {"path": "out/result.json", "rows_written": 2, "bytes_out": 17}


def test_append_to_json_lines_adds_lines_even_after_a_missing_line_break(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "result.json").write_text('{"a":1}')
    write(tmp_path, pd.DataFrame({"a": [2, 3]}), mode="append")
    assert written(tmp_path) == '{"a":1}\n{"a":2}\n{"a":3}\n'


def test_append_to_an_array_rewrites_it_with_the_old_and_the_new_objects(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "result.json").write_text('[\n  {"a": 1, "b": "kept as is"}\n]\n')
    write(tmp_path, pd.DataFrame({"a": [2]}), mode="append", lines=False)
    assert json.loads(written(tmp_path)) == [{"a": 1, "b": "kept as is"}, {"a": 2}]
    write(tmp_path, pd.DataFrame({"a": []}), mode="append", lines=False)
    assert len(json.loads(written(tmp_path))) == 2


def test_appending_an_array_to_a_file_that_is_not_one_is_refused_and_keeps_it(tmp_path):
    write(tmp_path, pd.DataFrame({"a": [1]}))
    with pytest.raises(OperatorError, match=r"cannot append to 'out/result\.json': it does not"):
        write(tmp_path, pd.DataFrame({"a": [2]}), mode="append", lines=False)
    assert written(tmp_path) == '{"a":1}\n'
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["result.json"]


def test_error_if_exists_refuses_and_keeps_the_file(tmp_path):
    write(tmp_path, pd.DataFrame({"a": [1]}))
    with pytest.raises(OperatorError, match=r"'out/result\.json' already exists"):
        write(tmp_path, pd.DataFrame({"a": [2]}), mode="error_if_exists")
    assert written(tmp_path) == '{"a":1}\n'


def test_a_stopped_node_never_replaces_the_file_and_leaves_no_temporary(tmp_path):
    write(tmp_path, pd.DataFrame({"a": [1]}))
    operator = JsonOutput()
    ctx = make_ctx(operator, {"path": "out/result.json"}, tmp_path)
    ctx.stop()
    with pytest.raises(NodeCancelled):
        operator.run(ctx, {"in": pd.DataFrame({"a": [2]})})
    assert written(tmp_path) == '{"a":1}\n'
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["result.json"]


def test_decimals_duckdb_wrote_are_written_as_json_numbers_of_their_exact_digits(tmp_path):
    path = tmp_path / "money.parquet"
    duckdb.execute(
        "COPY (SELECT * FROM (VALUES (1.10::DECIMAL(38,10)), (0.0000000001), (NULL), "
        f"(-1234567890123456789012345678.5)) t(price)) TO '{path}' (FORMAT parquet)"
    )
    write(tmp_path, to_pandas(conform_table(pq.read_table(path))))
    assert written(tmp_path).splitlines() == [
        '{"price":1.1000000000}',
        '{"price":0.0000000001}',
        '{"price":null}',
        '{"price":-1234567890123456789012345678.5000000000}',
    ]
    numbers = [
        json.loads(line, parse_float=decimal.Decimal)["price"]
        for line in written(tmp_path).splitlines()
    ]
    assert numbers == [value for (value,) in duckdb.execute(f"SELECT * FROM '{path}'").fetchall()]
