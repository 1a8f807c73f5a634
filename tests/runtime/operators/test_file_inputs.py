"""Every file input reads a folder or a pattern as one table: its files in sorted path order,
columns matched by name, a file that differs from the first named, `file_name_column`."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from runtime.errors import OperatorError, ParamsError
from runtime.operators import context
from runtime.operators.csv_files import CsvInput
from runtime.operators.excel_files import ExcelInput
from runtime.operators.json_files import JsonInput
from runtime.operators.parquet_files import ParquetInput
from tests.runtime.operators.contract import OperatorContract, make_ctx


def encoded(kind: str, columns: dict) -> bytes:
    """A file of `kind` holding `columns` (name → values), as pandas writes it."""
    frame, buffer = pd.DataFrame(columns), io.BytesIO()
    if kind == "csv":
        frame.to_csv(buffer, index=False)
    elif kind == "parquet":
        frame.to_parquet(buffer, index=False)
    elif kind == "json":
        frame.to_json(buffer, orient="records", lines=True)
    else:
        frame.to_excel(buffer, index=False)
    return buffer.getvalue()


KINDS = {
    "csv": (CsvInput, ".csv", {}),
    "parquet": (ParquetInput, ".parquet", {}),
    "json": (JsonInput, ".jsonl", {"lines": True}),
    "excel": (ExcelInput, ".xlsx", {}),
}
JANUARY = {"id": [1, 2], "name": ["Ada", "Linus"]}
FEBRUARY = {"name": ["Grace"], "id": [3]}  # the same columns in another order


def month_files(kind: str) -> dict[str, bytes]:
    ending = KINDS[kind][1]
    return {
        f"sales/2026-02{ending}": encoded(kind, FEBRUARY),
        f"sales/2026-01{ending}": encoded(kind, JANUARY),
        f"sales/2025-12{ending}": encoded(kind, {"id": [0], "name": ["Old"]}),
    }


class TestCsvPatternContract(OperatorContract):
    operator_cls = CsvInput
    params = {"path": "sales/2026-*.csv", "file_name_column": "file"}
    files = month_files("csv")


class TestParquetFolderContract(OperatorContract):
    operator_cls = ParquetInput
    params = {"path": "sales", "file_name_column": "file"}
    files = month_files("parquet")


class TestJsonPatternContract(OperatorContract):
    operator_cls = JsonInput
    params = {"path": "sales/*.jsonl", "lines": True, "file_name_column": "file"}
    files = month_files("json")


class TestExcelFolderContract(OperatorContract):
    operator_cls = ExcelInput
    params = {"path": "sales/", "file_name_column": "file"}
    files = month_files("excel")


def place(root, files: dict[str, bytes]) -> None:
    for name, content in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(content)


def read(kind: str, root, path: str, **params) -> pd.DataFrame:
    operator_cls, _, defaults = KINDS[kind]
    operator = operator_cls()
    ctx = make_ctx(operator, {"path": path, **defaults, **params}, root)
    return operator.run(ctx, {})["out"]


@pytest.fixture(params=KINDS)
def kind(request) -> str:
    return request.param


def test_a_pattern_reads_its_files_in_sorted_order_matching_columns_by_name(kind, tmp_path):
    place(tmp_path, month_files(kind))
    frame = read(kind, tmp_path, f"sales/2026-*{KINDS[kind][1]}")
    assert frame.columns.tolist() == ["id", "name"]  # the first file's order
    assert frame["id"].tolist() == [1, 2, 3]
    assert frame["name"].tolist() == ["Ada", "Linus", "Grace"]
    assert str(frame["id"].dtype) == "Int64"


def test_a_folder_reads_every_file_with_the_operators_ending_and_names_each(kind, tmp_path):
    place(tmp_path, {**month_files(kind), "sales/notes.md": b"# not data", "sales/.x": b""})
    frame = read(kind, tmp_path, "sales", file_name_column="source")
    ending = KINDS[kind][1]
    assert frame["id"].tolist() == [0, 1, 2, 3]
    assert frame["source"].tolist() == [
        f"sales/2025-12{ending}",
        f"sales/2026-01{ending}",
        f"sales/2026-01{ending}",
        f"sales/2026-02{ending}",
    ]


def test_a_file_with_other_columns_is_an_error_naming_it_and_the_first(kind, tmp_path):
    ending = KINDS[kind][1]
    place(tmp_path, month_files(kind))
    place(tmp_path, {f"sales/2026-03{ending}": encoded(kind, {"id": [4], "note": ["x"]})})
    with pytest.raises(ParamsError) as raised:
        read(kind, tmp_path, "sales")
    assert raised.value.field == "path"
    assert raised.value.message == (
        f"'sales/2026-03{ending}' does not have the columns of the first file, "
        f"'sales/2025-12{ending}': it lacks 'name' and it has 'note' too; every file the "
        "path names must have the same columns"
    )


def test_a_column_of_another_type_is_an_error_naming_the_column_and_both_files(kind, tmp_path):
    ending = KINDS[kind][1]
    place(tmp_path, month_files(kind))
    place(tmp_path, {f"sales/2026-03{ending}": encoded(kind, {"id": ["four"], "name": ["x"]})})
    with pytest.raises(ParamsError, match=r"^path: ") as raised:
        read(kind, tmp_path, "sales/2026-*")
    assert raised.value.message == (
        f"column 'id' is string in 'sales/2026-03{ending}' but integer in "
        f"'sales/2026-01{ending}'; every file the path names must give a column the same type"
    )


def test_a_file_name_column_that_the_files_have_is_refused_at_its_field(kind, tmp_path):
    place(tmp_path, month_files(kind))
    with pytest.raises(ParamsError, match="already has a column 'name'") as raised:
        read(kind, tmp_path, "sales", file_name_column="name")
    assert raised.value.field == "file_name_column"


def test_the_schema_comes_from_the_first_file(kind, tmp_path):
    place(tmp_path, month_files(kind))
    operator_cls, ending, defaults = KINDS[kind]
    operator = operator_cls()
    (tmp_path / f"sales/2026-03{ending}").write_bytes(b"not read for the schema")
    params = {"path": "sales/2026-*", "file_name_column": "file", **defaults}
    schema = operator.output_schema(make_ctx(operator, params, tmp_path), {})["out"]
    assert [(column.name, column.type) for column in schema.columns] == [
        ("id", "integer"),
        ("name", "string"),
        ("file", "string"),
    ]


def test_a_preview_reads_only_the_files_its_rows_need(kind, tmp_path):
    ending = KINDS[kind][1]
    place(tmp_path, month_files(kind))
    (tmp_path / f"sales/2026-03{ending}").write_bytes(b"broken, and never opened")
    operator_cls, _, defaults = KINDS[kind]
    operator = operator_cls()
    params = {"path": "sales/2026-*", **defaults}
    ctx = make_ctx(operator, params, tmp_path, row_limit=3)
    assert operator.run(ctx, {})["out"]["id"].tolist() == [1, 2, 3]
    ctx = make_ctx(operator, params, tmp_path, row_limit=2)
    assert operator.run(ctx, {})["out"]["id"].tolist() == [1, 2]
    with pytest.raises(OperatorError, match=f"cannot read 'sales/2026-03{ending}'"):
        operator.run(make_ctx(operator, params, tmp_path), {})


def test_progress_counts_the_rows_of_every_file_read_so_far(tmp_path, monkeypatch):
    monkeypatch.setattr(context, "PROGRESS_INTERVAL_S", 0)
    place(tmp_path, month_files("parquet"))
    events = []
    operator = ParquetInput()
    ctx = make_ctx(
        operator, {"path": "sales"}, tmp_path, emit=lambda kind, **fields: events.append(fields)
    )
    operator.run(ctx, {})
    assert [event["rows"] for event in events] == [1, 3, 4]


def test_an_empty_csv_column_fits_the_type_the_other_files_give_it(tmp_path):
    place(tmp_path, {"in/a.csv": b"id,score\n1,\n2,\n", "in/b.csv": b"id,score\n3,0.5\n"})
    frame = read("csv", tmp_path, "in")
    assert frame["score"].tolist()[2] == 0.5 and frame["score"].isna().tolist()[:2] == [True] * 2
    assert str(frame["score"].dtype) == "float64"


def test_csv_column_pruning_reads_each_file_by_its_own_header(tmp_path):
    place(tmp_path, {"in/a.csv": b"id,name,x\n1,Ada,7\n", "in/b.csv": b"x,name,id\n8,Linus,2\n"})
    operator = CsvInput()
    ctx = make_ctx(operator, {"path": "in/*.csv"}, tmp_path, columns={"id"})
    frame = operator.run(ctx, {})["out"]
    assert frame.columns.tolist() == ["id"] and frame["id"].tolist() == [1, 2]


def test_an_excel_folder_reads_the_same_sheet_of_each_workbook(tmp_path):
    place(tmp_path, {"books/a.xlsx": encoded("excel", JANUARY), "books/b.xlsx": b""})
    with pytest.raises(OperatorError, match=r"cannot read 'books/b\.xlsx' as an Excel workbook"):
        read("excel", tmp_path, "books")
    with pytest.raises(ParamsError, match=r"there is no sheet 'Sales' in 'books/a\.xlsx'"):
        read("excel", tmp_path, "books/a*", sheet="Sales")
