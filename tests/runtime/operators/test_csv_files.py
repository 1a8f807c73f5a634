"""`csv_input` and `csv_output`: types, options, confinement, all-or-nothing writes."""

from __future__ import annotations

import datetime

import pandas as pd
import pytest

from runtime.errors import NodeCancelled, OperatorError, UnsafePathError
from runtime.operators.csv_files import CsvInput, CsvOutput
from tests.runtime.operators.contract import OperatorContract, make_ctx

PEOPLE = "id,name,age,joined\n1,Ada,36,2024-01-31\n2,Linus,,2023-05-01\n3,,85,\n"


class TestCsvInputContract(OperatorContract):
    operator_cls = CsvInput
    params = {"path": "people.csv"}
    files = {"people.csv": PEOPLE}
    bad_params = [
        ({}, r"node\.params\.path: Path: required"),
        (
            {"path": "a.csv", "delimiter": ";;"},
            r"params\.delimiter: Delimiter: must be at most 1 character",
        ),
        (
            {"path": "a.csv", "dtypes": {"age": "number"}},
            r"params\.dtypes\.age: Column types, age: must be one of 'string'",
        ),
        (
            {"path": "a.csv", "skip_rows": -1},
            r"params\.skip_rows: Skip rows: must be at least 0",
        ),
    ]


class TestCsvOutputContract(OperatorContract):
    operator_cls = CsvOutput
    params = {"path": "out/result.csv"}
    inputs = {"in": pd.DataFrame({"a": [1, 2]})}
    bad_params = [
        (
            {"path": "x.csv", "mode": "merge"},
            r"params\.mode: When the file exists: must be one of 'overwrite'",
        )
    ]


def read(tmp_path, content: str, **params) -> pd.DataFrame:
    (tmp_path / "in.csv").write_bytes(content.encode(params.pop("file_encoding", "utf-8")))
    operator = CsvInput()
    return operator.run(make_ctx(operator, {"path": "in.csv", **params}, tmp_path), {})["out"]


def test_integer_columns_stay_integers_even_with_gaps(tmp_path):
    frame = read(tmp_path, PEOPLE)
    assert str(frame["age"].dtype) == "Int64"
    assert frame["age"].isna().tolist() == [False, True, False]
    assert frame["name"].isna().tolist() == [False, False, True]  # an empty field is null


def test_dates_are_read_as_dates(tmp_path):
    frame = read(tmp_path, PEOPLE)
    assert str(frame["joined"].dtype) == "date32[day][pyarrow]"


def test_delimiter_encoding_skip_rows_and_column_subset(tmp_path):
    content = "exported by tool\nnom;âge\nRené;40\n"
    frame = read(
        tmp_path, content, delimiter=";", encoding="latin-1", file_encoding="latin-1",
        skip_rows=1, columns=["âge"],
    )  # fmt: skip
    assert frame.columns.tolist() == ["âge"]
    assert frame["âge"].tolist() == [40]


def test_without_a_header_columns_are_numbered(tmp_path):
    frame = read(tmp_path, "1,x\n2,y\n", header=False)
    assert frame.columns.tolist() == ["column_1", "column_2"]
    assert len(frame) == 2


def test_declared_dtypes_convert_and_bad_values_become_null(tmp_path):
    frame = read(tmp_path, "a,b\n1,yes\nx,no\n", dtypes={"a": "float", "b": "boolean"})
    assert frame["a"].isna().tolist() == [False, True]
    assert frame["b"].tolist() == [True, False]


def test_dtypes_for_a_missing_column_name_it(tmp_path):
    with pytest.raises(
        OperatorError, match=r"column types name columns that 'in\.csv' does not have: agee"
    ):
        read(tmp_path, "age\n1\n", dtypes={"agee": "integer"})


def test_a_missing_subset_column_is_a_clear_error(tmp_path):
    with pytest.raises(
        OperatorError,
        match=r"cannot read 'in\.csv' as CSV: column 'agee' in 'columns' does not exist",
    ):
        read(tmp_path, "age\n1\n", columns=["agee"])


def test_the_row_limit_of_a_preview_is_honoured(tmp_path):
    (tmp_path / "in.csv").write_text("n\n" + "\n".join(map(str, range(1000))) + "\n")
    operator = CsvInput()
    ctx = make_ctx(operator, {"path": "in.csv"}, tmp_path, row_limit=10)
    assert operator.run(ctx, {})["out"]["n"].tolist() == list(range(10))


@pytest.mark.parametrize("path", ["../outside.csv", "/etc/passwd", "link/x.csv"])
def test_paths_that_leave_the_data_root_are_refused(tmp_path, path):
    root = tmp_path / "root"
    root.mkdir()
    (root / "link").symlink_to(tmp_path)
    operator = CsvInput()
    with pytest.raises(UnsafePathError, match=f"path '{path}' is outside the data root"):
        operator.run(make_ctx(operator, {"path": path}, root), {})


def write(tmp_path, frame: pd.DataFrame, **params):
    operator = CsvOutput()
    ctx = make_ctx(operator, {"path": "out/result.csv", **params}, tmp_path)
    operator.run(ctx, {"in": frame})
    return ctx


def test_output_creates_folders_and_reports_rows_and_path(tmp_path):
    ctx = write(tmp_path, pd.DataFrame({"a": [1, 2]}))
    assert (tmp_path / "out" / "result.csv").read_text() == "a\n1\n2\n"
    assert ctx.metrics["rows_written"] == 2
    assert ctx.metrics["path"] == "out/result.csv"
    assert ctx.metrics["bytes_out"] == 6


@pytest.mark.parametrize(
    "frame",
    [
        pd.DataFrame({"a": pd.array(["cr\ronly", "x"], dtype="str"), "b": [1, 2]}),
        pd.DataFrame({"cr\rname": [1, 2], "b": [1, 2]}),
    ],
    ids=["value", "name"],
)
def test_a_carriage_return_in_a_text_or_a_name_reads_back_whole(tmp_path, frame):
    """Python's CSV writer quotes only the characters of its line ending; every reader ends a
    row at a bare carriage return, so such a file is written with CRLF line endings."""
    write(tmp_path, frame)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "out" / "result.csv"), frame)


def test_a_column_of_other_objects_is_written_as_their_text(tmp_path):
    frame = pd.DataFrame({"at": [datetime.time(10, 30), None], "mixed": ["cr\ronly", 1]})
    write(tmp_path, frame)
    back = pd.read_csv(tmp_path / "out" / "result.csv")
    assert back["mixed"].tolist() == ["cr\ronly", "1"]
    assert back["at"].fillna("null").tolist() == ["10:30:00", "null"]


def test_append_adds_rows_without_a_second_header(tmp_path):
    write(tmp_path, pd.DataFrame({"a": [1]}))
    write(tmp_path, pd.DataFrame({"a": [2]}), mode="append")
    assert (tmp_path / "out" / "result.csv").read_text() == "a\n1\n2\n"


def test_error_if_exists_refuses_and_keeps_the_file(tmp_path):
    write(tmp_path, pd.DataFrame({"a": [1]}))
    with pytest.raises(
        OperatorError, match=r"'out/result\.csv' already exists and mode is error_if_exists"
    ):
        write(tmp_path, pd.DataFrame({"a": [2]}), mode="error_if_exists")
    assert (tmp_path / "out" / "result.csv").read_text() == "a\n1\n"


def test_a_stopped_node_never_replaces_the_file_and_leaves_no_temporary(tmp_path):
    write(tmp_path, pd.DataFrame({"a": [1]}))
    operator = CsvOutput()
    ctx = make_ctx(operator, {"path": "out/result.csv"}, tmp_path)
    ctx.stop()
    with pytest.raises(NodeCancelled):
        operator.run(ctx, {"in": pd.DataFrame({"a": [2]})})
    assert (tmp_path / "out" / "result.csv").read_text() == "a\n1\n"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["result.csv"]


def test_a_failing_write_leaves_the_previous_file_whole(tmp_path):
    write(tmp_path, pd.DataFrame({"a": [1]}))

    class Exploding(pd.DataFrame):
        def to_csv(self, path, **options):
            path.write_text("half")
            raise OSError("disk full")

    operator = CsvOutput()
    ctx = make_ctx(operator, {"path": "out/result.csv"}, tmp_path)
    with pytest.raises(OperatorError, match=r"^cannot write 'out/result\.csv': disk full$"):
        operator.run(ctx, {"in": Exploding({"a": [2]})})
    assert (tmp_path / "out" / "result.csv").read_text() == "a\n1\n"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["result.csv"]
