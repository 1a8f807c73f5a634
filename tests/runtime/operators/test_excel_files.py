"""`excel_input` and `excel_output`: sheets, Excel's numbers and dates, appends below a sheet."""

from __future__ import annotations

import datetime as dt
import io

import openpyxl
import pandas as pd
import pytest

from runtime.errors import NodeCancelled, OperatorError, ParamsError
from runtime.operators import excel_files
from runtime.operators.excel_files import ExcelInput, ExcelOutput
from tests.runtime.operators.contract import OperatorContract, make_ctx
from tests.runtime.operators.test_json_files import EVERY_TYPE


def workbook_bytes(sheets: dict[str, list[list]], formats: dict[str, str] | None = None) -> bytes:
    """An .xlsx whose sheets hold these rows; `formats` maps cells (`C2`) to number formats."""
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
        for cell, number_format in (formats or {}).items():
            sheet[cell].number_format = number_format
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


SALES = [
    ["id", "amount", "when", "day", "ok", "note"],
    [1, 9.5, dt.datetime(2024, 1, 31, 10, 30), dt.datetime(2024, 1, 31), True, "first"],
    [None, 3, dt.datetime(2024, 2, 1, 8, 0), None, False, 7],
    [3, None, None, dt.datetime(2024, 2, 2), None, None],
]
SALES_XLSX = workbook_bytes(
    {"Summary": [["total"], [12.5]], "Sales": SALES},
    {"C2": "yyyy-mm-dd hh:mm", "D2": "d/m/yyyy", "C3": "yyyy-mm-dd hh:mm", "D4": "d/m/yyyy"},
)


class TestExcelInputContract(OperatorContract):
    operator_cls = ExcelInput
    params = {"path": "sales.xlsx", "sheet": "Sales"}
    files = {"sales.xlsx": SALES_XLSX}
    bad_params = [
        ({}, r"node\.params\.path: Path: required"),
        (
            {"path": "a.xlsx", "sheet": -1},
            r"params\.sheet: Sheet: a sheet's position counts from 0 \(the first sheet\)",
        ),
    ]


class TestExcelOutputContract(OperatorContract):
    operator_cls = ExcelOutput
    params = {"path": "out/result.xlsx", "sheet": "Data"}
    inputs = {"in": EVERY_TYPE}
    bad_params = [
        (
            {"path": "x.xlsx", "mode": "merge"},
            r"params\.mode: When the file exists: must be one of 'overwrite'",
        ),
        ({"path": "x.xlsx", "sheet": "a/b"}, r"params\.sheet: Sheet: must match the pattern"),
        (
            {"path": "x.xlsx", "sheet": "x" * 32},
            r"params\.sheet: Sheet: must be at most 31 characters",
        ),
    ]


def read(tmp_path, content: bytes | None = SALES_XLSX, row_limit: int | None = None, **params):
    if content is not None:
        (tmp_path / "in.xlsx").write_bytes(content)
    operator = ExcelInput()
    ctx = make_ctx(operator, {"path": "in.xlsx", **params}, tmp_path, row_limit=row_limit)
    return operator.run(ctx, {})["out"]


def write(tmp_path, frame: pd.DataFrame, **params):
    operator = ExcelOutput()
    ctx = make_ctx(operator, {"path": "out/result.xlsx", **params}, tmp_path)
    operator.run(ctx, {"in": frame})
    return ctx


def sheet_rows(tmp_path, sheet: str = "Sheet1") -> list[tuple]:
    book = openpyxl.load_workbook(tmp_path / "out" / "result.xlsx")
    return list(book[sheet].iter_rows(values_only=True))


def test_cells_are_read_in_the_public_types(tmp_path):
    frame = read(tmp_path, sheet="Sales")
    assert {name: str(dtype) for name, dtype in frame.dtypes.items()} == {
        "id": "Int64", "amount": "float64", "when": "datetime64[us]",
        "day": "date32[day][pyarrow]", "ok": "boolean", "note": "str",
    }  # fmt: skip
    assert frame["id"].isna().tolist() == [False, True, False]
    assert frame["amount"].tolist()[:2] == [9.5, 3.0]
    assert frame["day"].tolist()[0] == dt.date(2024, 1, 31)
    assert frame["note"].tolist()[:2] == ["first", "7"]  # a column mixing text and numbers


def test_the_first_sheet_is_read_unless_one_is_named_or_numbered(tmp_path):
    assert read(tmp_path).columns.tolist() == ["total"]
    assert read(tmp_path, sheet=1).columns.tolist() == SALES[0]


@pytest.mark.parametrize(
    ("sheet", "message"),
    [
        ("Sale", r"sheet: there is no sheet 'Sale' in 'in\.xlsx'; the sheets are: Summary, Sales"),
        (2, r"sheet: 'in\.xlsx' has 2 sheet\(s\), so there is no sheet 2; the sheets are: Summ"),
    ],
)
def test_an_unknown_sheet_is_refused_naming_the_sheets(tmp_path, sheet, message):
    (tmp_path / "in.xlsx").write_bytes(SALES_XLSX)
    operator = ExcelInput()
    for call in (operator.output_schema, operator.run):
        with pytest.raises(ParamsError, match=message):
            call(make_ctx(operator, {"path": "in.xlsx", "sheet": sheet}, tmp_path), {})


def test_a_file_that_is_not_a_workbook_is_a_clear_error(tmp_path):
    with pytest.raises(OperatorError, match=r"cannot read 'in\.xlsx' as an Excel workbook"):
        read(tmp_path, b"id,name\n1,Ada\n")


def test_the_row_limit_of_a_preview_is_honoured(tmp_path):
    content = workbook_bytes({"S": [["n"], *([n] for n in range(100))]})
    assert read(tmp_path, content, row_limit=10)["n"].tolist() == list(range(10))


def test_what_is_written_reads_back_as_the_same_frame(tmp_path):
    write(tmp_path, EVERY_TYPE)
    content = (tmp_path / "out" / "result.xlsx").read_bytes()
    pd.testing.assert_frame_equal(read(tmp_path, content), EVERY_TYPE)


def test_output_creates_folders_and_reports_rows_path_and_bytes(tmp_path):
    ctx = write(tmp_path, pd.DataFrame({"a": [1, 2]}), sheet="Data")
    assert sheet_rows(tmp_path, "Data") == [("a",), (1,), (2,)]
    size = (tmp_path / "out" / "result.xlsx").stat().st_size
    assert ctx.metrics == {"path": "out/result.xlsx", "rows_written": 2, "bytes_out": size}


def test_append_adds_rows_below_the_sheet_or_adds_the_sheet(tmp_path):
    write(tmp_path, pd.DataFrame({"a": [1]}))
    write(tmp_path, pd.DataFrame({"a": [2, 3]}), mode="append")
    write(tmp_path, pd.DataFrame({"b": ["x"]}), mode="append", sheet="Other")
    assert sheet_rows(tmp_path) == [("a",), (1,), (2,), (3,)]
    assert sheet_rows(tmp_path, "Other") == [("b",), ("x",)]


def test_appending_other_columns_is_refused_and_keeps_the_file(tmp_path):
    write(tmp_path, pd.DataFrame({"a": [1]}))
    with pytest.raises(
        OperatorError,
        match=r"cannot append to sheet 'Sheet1' of 'out/result\.xlsx': its columns are a but "
        r"the rows to write have b",
    ):
        write(tmp_path, pd.DataFrame({"b": [2]}), mode="append")
    assert sheet_rows(tmp_path) == [("a",), (1,)]
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["result.xlsx"]


def test_more_rows_than_a_sheet_holds_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(excel_files, "MAX_ROWS", 3)
    write(tmp_path, pd.DataFrame({"a": [1, 2]}))
    with pytest.raises(OperatorError, match="an Excel sheet holds at most 3 rows and this one"):
        write(tmp_path, pd.DataFrame({"a": [3]}), mode="append")
    assert sheet_rows(tmp_path) == [("a",), (1,), (2,)]


def test_text_starting_with_an_equals_sign_stays_text(tmp_path):
    write(tmp_path, pd.DataFrame({"a": pd.Series(["=1+1", None, "=SUM(A1:A2)"], dtype="str")}))
    content = (tmp_path / "out" / "result.xlsx").read_bytes()
    assert read(tmp_path, content)["a"].tolist()[::2] == ["=1+1", "=SUM(A1:A2)"]


def test_datetimes_with_a_time_zone_are_written_as_local_time(tmp_path):
    at = pd.to_datetime(["2024-01-31 10:00"]).tz_localize("Europe/Paris")
    write(tmp_path, pd.DataFrame({"at": at}))
    assert sheet_rows(tmp_path)[1] == (dt.datetime(2024, 1, 31, 10, 0),)


def test_a_stopped_node_never_replaces_the_file(tmp_path):
    write(tmp_path, pd.DataFrame({"a": [1]}))
    operator = ExcelOutput()
    ctx = make_ctx(operator, {"path": "out/result.xlsx"}, tmp_path)
    ctx.stop()
    with pytest.raises(NodeCancelled):
        operator.run(ctx, {"in": pd.DataFrame({"a": [2]})})
    assert sheet_rows(tmp_path) == [("a",), (1,)]
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["result.xlsx"]
