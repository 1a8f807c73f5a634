"""Compiled scripts read an input's folder or pattern of files as a run does: the same files in
the same order, joined by the same rules, with the same errors and the same refusals."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from runtime.document.spec import load_document
from runtime.errors import PipelineValidationError
from runtime.execution.executor import execute
from runtime.plan import build_plan
from tests.runtime.compile.scripts import compiled, run_script

ROWS = {
    "2026-02": [{"id": 3, "name": "grace"}, {"id": 4, "name": None}],
    "2026-01": [{"id": 1, "name": "ada"}, {"id": 2, "name": "linus"}],
}


def write_sales(folder: Path, rows: dict[str, list[dict]] = ROWS) -> None:
    """The same months as CSV, Parquet and JSON files, each format in a folder of its own,
    with a file of another kind beside them and a nested month for `**`."""
    for kind in ("csv", "parquet", "json"):
        (folder / kind / "old").mkdir(parents=True, exist_ok=True)
        (folder / kind / "notes.md").write_text("not data\n")
        for month, records in rows.items():
            write_rows(folder / kind / f"{month}.{kind}", records)
        write_rows(folder / kind / "old" / f"2025-12.{kind}", [{"id": 0, "name": "old"}])


def write_rows(path: Path, records: list[dict]) -> None:
    if path.suffix == ".csv":
        columns = list(records[0])
        lines = [",".join(columns)]
        lines += [",".join("" if r[c] is None else str(r[c]) for c in columns) for r in records]
        path.write_text("\n".join(lines) + "\n")
    elif path.suffix == ".parquet":
        pq.write_table(pa.Table.from_pylist(records), path)
    else:
        path.write_text(json.dumps(records))


def reading(operator: str, path: str, output: str = "out.csv") -> dict:
    return {
        "name": "months",
        "nodes": [
            {"id": "read", "operator": operator,
             "params": {"path": path, "file_name_column": "source"}},
            {"id": "write", "operator": "csv_output", "params": {"path": output}},
        ],
        "edges": [{"source": "read", "target": "write"}],
    }  # fmt: skip


def run_and_script(document: dict, tmp_path: Path, write=write_sales):
    """A run of `document` and its script, each over its own copy of the files."""
    folders = {way: tmp_path / way for way in ("run", "script")}
    for folder in folders.values():
        folder.mkdir()
        write(folder)
    pipeline = load_document(document)
    result = execute(build_plan(pipeline, data_root=folders["run"]), data_root=folders["run"])
    script = compiled(document, folders["script"], tmp_path)
    ran = run_script(script, cwd=folders["script"])
    return result, ran, folders


@pytest.mark.parametrize("kind", ["csv", "parquet", "json"])
@pytest.mark.parametrize("written", ["{kind}", "{kind}/2026-*.{kind}", "{kind}/**/*.{kind}"])
def test_a_folder_or_pattern_input_gives_what_a_run_gives(kind, written, tmp_path):
    document = reading(f"{kind}_input", written.format(kind=kind))
    result, ran, folders = run_and_script(document, tmp_path)
    assert result.ok, result.error
    assert ran.returncode == 0, ran.stderr
    out = (folders["script"] / "out.csv").read_text()
    assert out == (folders["run"] / "out.csv").read_text()
    assert out.index(f"2026-01.{kind}") < out.index(f"2026-02.{kind}")  # sorted, not as written


def test_files_of_differing_columns_fail_the_script_with_the_runs_message(tmp_path):
    def write(folder: Path) -> None:
        write_sales(folder, {**ROWS, "2026-03": [{"id": 5, "city": "Paris"}]})

    result, ran, _ = run_and_script(reading("csv_input", "csv/2026-*.csv"), tmp_path, write)
    assert not result.ok
    message = "'csv/2026-03.csv' does not have the columns of the first file, 'csv/2026-01.csv'"
    assert message in str(result.error) and message in ran.stderr
    assert "path: " in ran.stderr  # worded as the run words a ParamsError


def glob_document() -> dict:
    document = reading("csv_input", "${glob}")
    document["config"] = {"parameters": {"glob": "csv/2026-*.csv"}}
    return document


def test_a_pattern_matching_nothing_fails_the_script_as_it_fails_a_run(tmp_path):
    write_sales(tmp_path)
    script = compiled(glob_document(), tmp_path, tmp_path)
    ran = run_script(script, "--glob", "csv/2027-*.csv", cwd=tmp_path)
    assert ran.returncode != 0 and "no files match 'csv/2027-*.csv'" in ran.stderr
    assert not (tmp_path / "out.csv").exists()
    run = load_document(reading("csv_input", "csv/2027-*.csv"))
    with pytest.raises(PipelineValidationError, match=r"no files match 'csv/2027-\*\.csv'"):
        build_plan(run, data_root=tmp_path)  # a run stops there, before any node runs


@pytest.mark.parametrize(
    ("glob", "refusal"),
    [
        ("../*.csv", "goes up a folder"),
        ("/etc/*", "outside the data root"),
        (".pipewright/*.csv", "'.pipewright/*.csv' is outside the data root"),
        (".*/*.csv", "is in the folder .pipewright, which Pipewright keeps for itself"),
        ("csv/*.csv", "leads outside the data root through a symbolic link"),
    ],
)
def test_a_pattern_leaving_the_data_root_or_reaching_pipewright_is_refused(glob, refusal, tmp_path):
    root = tmp_path / "data"
    root.mkdir()
    write_sales(root)
    script = compiled(glob_document(), root, tmp_path)
    write_rows(tmp_path / "secret.csv", [{"id": 9, "name": "secret"}])
    (root / ".pipewright").mkdir()
    write_rows(root / ".pipewright" / "kept.csv", [{"id": 9, "name": "kept"}])
    os.symlink(tmp_path / "secret.csv", root / "csv" / "2026-09.csv")
    ran = run_script(script, "--data-root", "data", "--glob", glob, cwd=tmp_path)
    assert ran.returncode != 0 and refusal in ran.stderr, ran.stderr
    assert str(tmp_path) not in ran.stderr.splitlines()[-1]
    assert not (root / "out.csv").exists()


def test_a_pipewright_folder_is_not_among_a_wildcards_matches(tmp_path):
    def write(folder: Path) -> None:
        write_sales(folder)
        (folder / ".pipewright").mkdir()
        write_rows(folder / ".pipewright" / "kept.csv", [{"id": 9, "name": "kept"}])

    result, ran, folders = run_and_script(reading("csv_input", "**/*.csv"), tmp_path, write)
    assert result.ok and ran.returncode == 0, ran.stderr
    out = (folders["script"] / "out.csv").read_text()
    assert out == (folders["run"] / "out.csv").read_text() and "kept" not in out


def test_one_script_reads_folders_of_every_file_format_as_a_run_does(tmp_path):
    def write(folder: Path) -> None:
        write_sales(folder)
        (folder / "xlsx").mkdir()
        for month, records in ROWS.items():
            pa.Table.from_pylist(records).to_pandas().to_excel(
                folder / "xlsx" / f"{month}.xlsx", index=False
            )

    kinds = ("csv", "parquet", "json", "xlsx")
    operators = {"xlsx": "excel_input"}
    document = {
        "name": "every format",
        "nodes": [
            *({"id": f"read_{kind}", "operator": operators.get(kind, f"{kind}_input"),
               "params": {"path": kind, "file_name_column": "source"}} for kind in kinds),
            *({"id": f"write_{kind}", "operator": "csv_output",
               "params": {"path": f"out_{kind}.csv"}} for kind in kinds),
        ],
        "edges": [{"source": f"read_{kind}", "target": f"write_{kind}"} for kind in kinds],
    }  # fmt: skip
    result, ran, folders = run_and_script(document, tmp_path, write)
    assert result.ok, result.error
    assert ran.returncode == 0, ran.stderr
    for kind in kinds:
        written = (folders["script"] / f"out_{kind}.csv").read_text()
        assert written == (folders["run"] / f"out_{kind}.csv").read_text(), kind


def test_a_file_name_column_the_files_have_fails_the_script_with_the_runs_message(tmp_path):
    document = reading("csv_input", "csv/*.csv")
    write_sales(tmp_path / "compiled")
    script = compiled(document, tmp_path / "compiled", tmp_path)
    clashing = {month: [{**r, "source": "x"} for r in rows] for month, rows in ROWS.items()}
    write_sales(tmp_path / "later", clashing)  # the files change after compiling
    result = execute(
        build_plan(load_document(document), data_root=tmp_path / "later"),
        data_root=tmp_path / "later",
    )
    ran = run_script(script, "--data-root", "later", cwd=tmp_path)
    message = "file_name_column: 'csv/2026-01.csv' already has a column 'source'"
    assert not result.ok and message in str(result.error)
    assert ran.returncode != 0 and message in ran.stderr, ran.stderr
