"""Folders and patterns as input paths: which files they name, in which order, and what they
may never reach (runtime/io/file_patterns.py), and how validation reports them."""

from __future__ import annotations

import os
import re

import pytest

from runtime.checks.analysis import analyse
from runtime.checks.inference import infer_schemas
from runtime.document.spec import load_document
from runtime.errors import OperatorError, UnsafePathError
from runtime.io import file_patterns
from runtime.io.file_patterns import input_files
from runtime.io.paths import FileArea
from runtime.operators.file_checks import input_bytes
from runtime.operators.registry import default_registry

CSV = (".csv", ".tsv", ".txt")


@pytest.fixture
def area(tmp_path) -> FileArea:
    """A workspace folder beside a shared folder and another workspace's folder."""
    for folder in ("root", "shared", "other"):
        (tmp_path / folder).mkdir()
    (tmp_path / "other" / "secret.csv").write_text("secret\n1\n")
    return FileArea(tmp_path / "root", shared=tmp_path / "shared", called="workspace folder")


def place(area: FileArea, *names: str, under: str = "root") -> None:
    base = area.root.parent / under
    for name in names:
        (base / name).parent.mkdir(parents=True, exist_ok=True)
        (base / name).write_text("a\n1\n")


def named(area: FileArea, path: str, endings=CSV) -> list[str]:
    return [file.name for file in input_files(area, path, endings)]


def test_a_pattern_names_its_matches_in_sorted_path_order(area):
    place(area, "sales/2026-02.parquet", "sales/2026-10.parquet", "sales/2026-01.parquet")
    place(area, "sales/2025-12.parquet", "sales/2026-01.csv")
    assert named(area, "sales/2026-*.parquet") == [
        "sales/2026-01.parquet",
        "sales/2026-02.parquet",
        "sales/2026-10.parquet",
    ]
    assert named(area, "sales/2026-0?.parquet") == [
        "sales/2026-01.parquet",
        "sales/2026-02.parquet",
    ]
    assert named(area, "sales/202[5]-*") == ["sales/2025-12.parquet"]
    assert named(area, "sales/2026-[!0]*") == ["sales/2026-10.parquet"]


def test_double_star_matches_any_depth_folder_by_folder(area):
    place(area, "logs/a.csv", "logs/2026/01/b.csv", "logs/2026/a.csv", "logs/2026-x/c.csv")
    place(area, "logs/2026/notes.md")
    assert named(area, "logs/**/*.csv") == [
        "logs/2026/01/b.csv",
        "logs/2026/a.csv",
        "logs/2026-x/c.csv",
        "logs/a.csv",
    ]  # part by part: logs/2026/... before logs/2026-x/...
    assert named(area, "logs/**/**/01/*.csv") == ["logs/2026/01/b.csv"]
    assert "logs/2026/notes.md" in named(area, "logs/**")


def test_a_folder_names_its_own_files_with_the_operators_endings(area):
    place(area, "in/b.CSV", "in/a.csv", "in/c.tsv", "in/d.json", "in/deeper/e.csv", "in/.f.csv")
    assert named(area, "in") == named(area, "in/") == ["in/a.csv", "in/b.CSV", "in/c.tsv"]
    assert named(area, "in", (".json",)) == ["in/d.json"]
    with pytest.raises(OperatorError, match=r"^folder 'in' holds no file ending in \.parquet$"):
        named(area, "in", (".parquet",))


def test_hidden_files_are_matched_only_by_a_part_that_starts_with_a_dot(area):
    place(area, "out/.result.csv.run-7.x.tmp", "out/result.csv", "out/.cache/a.csv")
    assert named(area, "out/*") == named(area, "out/**/*") == ["out/result.csv"]
    assert named(area, "out/.*.tmp") == ["out/.result.csv.run-7.x.tmp"]
    assert named(area, "out/.cache/*.csv") == ["out/.cache/a.csv"]


def test_a_pattern_that_matches_nothing_is_an_error_naming_it(area):
    place(area, "sales/2025-12.parquet")
    with pytest.raises(OperatorError, match=r"^no files match 'sales/2026-\*\.parquet'$"):
        named(area, "sales/2026-*.parquet")
    with pytest.raises(OperatorError, match=r"^no files match 'nowhere/\*\.csv'$"):
        named(area, "nowhere/*.csv")
    with pytest.raises(OperatorError, match=r"write \[\[\] to match a \[ itself"):
        named(area, "sales/report [final].csv")
    place(area, "sales/report [final].csv")
    assert named(area, "sales/report [[]final].csv") == ["sales/report [final].csv"]


@pytest.mark.parametrize(
    "pattern",
    ["../other/*.csv", "sales/../../other/*.csv", "shared/../../other/*.csv", "**/../*.csv"],
)
def test_a_pattern_never_goes_up_a_folder(area, pattern):
    with pytest.raises(UnsafePathError, match=r"goes up a folder \('\.\.'\)"):
        named(area, pattern)


def test_an_absolute_pattern_is_refused_outside_the_area_and_named_relative_inside(area):
    place(area, "sales/a.csv")
    other = area.root.parent / "other"
    with pytest.raises(UnsafePathError, match="is outside the workspace folder"):
        named(area, f"{other}/*.csv")
    assert named(area, f"{area.root}/sales/*.csv") == ["sales/a.csv"]
    assert named(area, f"{area.root}/sales") == ["sales/a.csv"]


def test_a_link_that_leads_out_is_refused_not_skipped(area):
    place(area, "in/a.csv")
    os.symlink(area.root.parent / "other" / "secret.csv", area.root / "in" / "b.csv")
    for path in ("in/*.csv", "in"):
        message = rf"'in/b\.csv' \(named by '{re.escape(path)}'\) leads outside the workspace"
        with pytest.raises(UnsafePathError, match=message):
            named(area, path)


def test_a_link_to_a_folder_outside_is_refused_and_double_star_does_not_follow_links(area):
    place(area, "in/a.csv")
    os.symlink(area.root.parent / "other", area.root / "in" / "elsewhere")
    os.symlink(area.root, area.root / "in" / "loop")  # a loop `**` would never leave
    with pytest.raises(UnsafePathError, match=r"'in/elsewhere/secret\.csv'"):
        named(area, "in/*/*.csv")
    assert named(area, "in/**/*.csv") == ["in/a.csv"]


def test_links_inside_the_area_are_read_under_the_name_they_are_matched_by(area):
    place(area, "2026/a.csv")
    os.symlink(area.root / "2026", area.root / "current")
    os.symlink(area.root / "2026" / "a.csv", area.root / "2026" / "latest.csv")
    files = input_files(area, "current/*.csv", CSV)
    assert [file.name for file in files] == ["current/a.csv", "current/latest.csv"]
    assert {file.location for file in files} == {(area.root / "2026" / "a.csv").resolve()}


def test_the_shared_folder_is_matched_as_shared_and_never_through_a_folder_of_that_name(area):
    place(area, "rates/eur.csv", "rates/usd.csv", under="shared")
    place(area, "shared/decoy.csv", "team/a.csv")  # a real folder `shared` in the workspace
    assert named(area, "shared/rates/*.csv") == ["shared/rates/eur.csv", "shared/rates/usd.csv"]
    assert named(area, "shared/rates") == ["shared/rates/eur.csv", "shared/rates/usd.csv"]
    assert named(area, "*/*.csv") == named(area, "**/*.csv") == ["team/a.csv"]


def test_more_files_than_the_cap_are_refused_not_cut_short(area, monkeypatch):
    place(area, *(f"many/{index}.csv" for index in range(4)))
    monkeypatch.setattr(file_patterns, "MAX_FILES", 3)
    for path in ("many/*.csv", "many"):
        with pytest.raises(OperatorError, match=rf"^'{re.escape(path)}' names more than 3 files"):
            named(area, path)
    assert len(named(area, "many/[0-2].csv")) == 3


def test_a_pattern_looks_at_a_bounded_number_of_entries(area, monkeypatch):
    place(area, *(f"tree/{index}/x.txt" for index in range(5)))
    monkeypatch.setattr(file_patterns, "MAX_ENTRIES", 8)
    with pytest.raises(OperatorError, match=r"looks through more than 8 files and folders"):
        named(area, "tree/**/*.csv")


def test_a_pattern_is_bounded_in_length(area):
    with pytest.raises(OperatorError, match=r"the pattern is 1,002 characters long; at most 1,000"):
        named(area, "*" + "a" * 1000 + "?")


def document(path: str, operator: str = "csv_input"):
    return load_document(
        {"name": "t", "nodes": [{"id": "read", "operator": operator, "params": {"path": path}}]}
    )


@pytest.mark.parametrize(
    ("path", "code", "message"),
    [
        ("sales/2026-*.csv", "input_files", "Path: no files match 'sales/2026-*.csv'"),
        ("empty", "input_files", "Path: folder 'empty' holds no file ending in .csv, .tsv or .txt"),
        ("../other/*.csv", "unsafe_path", "Path: pattern '../other/*.csv' goes up a folder"),
    ],
    ids=["no match", "empty folder", "going up"],
)
def test_validation_reports_a_folder_or_pattern_that_names_no_file_at_its_field(
    area, path, code, message
):
    (area.root / "empty").mkdir()
    [problem] = analyse(document(path), data_root=area).problems
    assert (problem.node, problem.field, problem.code) == ("read", "params.path", code)
    assert problem.message.startswith(message)
    assert [p.code for p in infer_schemas(document(path), data_root=area).problems] == [code]


def test_a_single_missing_file_is_still_the_operators_to_report(area):
    assert analyse(document("nowhere.csv"), data_root=area).problems == []


def test_input_bytes_sum_over_the_files_a_pattern_names(area):
    place(area, "in/a.csv", "in/b.csv")
    (area.root / "in" / "c.csv").write_text("a\n" + "1\n" * 100)
    operator = default_registry().get("csv_input")
    params = operator.Params.model_validate({"path": "in/*.csv"})
    assert input_bytes(operator, params, area) == 4 + 4 + 202
    missing = operator.Params.model_validate({"path": "none/*.csv"})
    assert input_bytes(operator, missing, area) == 0


def test_a_missing_file_suggests_the_closest_file_of_its_folder(area):
    place(area, "data/customers.csv", "data/orders.csv")
    with pytest.raises(OperatorError) as refused:
        input_files(area, "data/custmers.csv", CSV)
    assert str(refused.value) == (
        "input file 'data/custmers.csv' not found under the workspace folder; "
        "did you mean 'data/customers.csv'?"
    )
    assert refused.value.field == "path" and refused.value.retryable


def test_a_missing_files_misspelt_folder_is_suggested_from_the_folder_above(area):
    place(area, "data/customers.csv")
    place(area, "customers.csv", under="shared")
    assert file_patterns.nearby_files(area, "dta/customers.csv") == ["data/customers.csv"]
    with pytest.raises(OperatorError, match=re.escape("did you mean 'data/customers.csv'")):
        input_files(area, "dta/customers.csv", CSV)


def test_a_missing_file_in_the_shared_folder_is_suggested_from_it(area):
    place(area, "rates.csv", under="shared")
    with pytest.raises(OperatorError, match=re.escape("did you mean 'shared/rates.csv'")):
        input_files(area, "shared/rate.csv", CSV)


def test_a_missing_file_with_nothing_close_names_no_file(area):
    place(area, "data/customers.csv", ".hidden.csv")
    with pytest.raises(OperatorError) as refused:
        input_files(area, "zzz.csv", CSV)
    assert "did you mean" not in str(refused.value)
