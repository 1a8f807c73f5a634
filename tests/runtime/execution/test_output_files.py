"""Output files: paths that name a folder, temporaries beside the target named after the run,
stale temporaries cleared on start, and messages that never show where the data root is."""

from __future__ import annotations

import contextlib
import os
import re
import time
from pathlib import Path

import pytest

from runtime.checks.inference import infer_schemas
from runtime.document.spec import load_document
from runtime.errors import NodeExecutionError, PipelineValidationError
from runtime.execution.events import ListSink
from runtime.execution.executor import execute
from runtime.execution.preview import preview
from runtime.io.paths import FileArea
from runtime.operators.atomic import (
    UNKNOWN_RUN_GRACE_S,
    remove_stale_temporaries,
    staged_file,
    temporary_path,
)
from runtime.operators.csv_files import CsvInput
from runtime.operators.file_common import FileOutput, FileOutputParams
from runtime.operators.registry import Registry, default_registry
from runtime.plan import build_plan

PEOPLE = "id,name\n1,Ada\n2,Grace\n"


def copy_pipeline(read: dict, write: dict, write_operator: str = "csv_output"):
    return load_document(
        {
            "format": "pipewright.pipeline",
            "version": 1,
            "name": "copy",
            "nodes": [
                {"id": "read", "operator": read.pop("operator", "csv_input"), "params": read},
                {"id": "write", "operator": write_operator, "params": write},
            ],
            "edges": [{"source": "read", "target": "write"}],
        }
    )


def run(document, root: Path, registry: Registry | None = None, **options):
    sink = ListSink()
    plan = build_plan(document, registry=registry or default_registry())
    return execute(plan, sinks=[sink], data_root=root, **options), sink


@pytest.fixture
def root(tmp_path) -> Path:
    folder = tmp_path / "root"
    folder.mkdir()
    (folder / "people.csv").write_text(PEOPLE)
    return folder


@pytest.mark.parametrize("path", [".", "out/", "out/.", "out/..", "./", "out\\"])
def test_an_output_path_that_names_a_folder_is_refused_at_validation(path):
    with pytest.raises(PipelineValidationError, match=r"names a folder, not a file") as caught:
        build_plan(copy_pipeline({"path": "people.csv"}, {"path": path}))
    [problem] = caught.value.problems
    assert (problem.node, problem.field) == ("write", "params.path")


def test_an_empty_output_path_is_refused_at_validation():
    with pytest.raises(PipelineValidationError, match=r"^write: Path: must not be empty$"):
        build_plan(copy_pipeline({"path": "people.csv"}, {"path": ""}))


def test_an_output_path_that_is_an_existing_folder_is_a_problem_of_its_field(root):
    (root / "out").mkdir()
    inferred = infer_schemas(copy_pipeline({"path": "people.csv"}, {"path": "out"}), data_root=root)
    [problem] = inferred.problems
    assert (problem.node, problem.field) == ("write", "params.path")
    assert problem.message == "Path: 'out' is a folder; give the name of a file to write inside it"


def test_writing_over_an_existing_folder_fails_cleanly_and_leaves_nothing_behind(root):
    """Before: the rename over the folder crashed with `IsADirectoryError: ... '/srv/...'`."""
    (root / "out").mkdir()
    before = set(root.parent.rglob("*"))
    result, _ = run(copy_pipeline({"path": "people.csv"}, {"path": "out"}), root)
    assert result.nodes["write"].error == (
        "path: 'out' is a folder; give the name of a file to write inside it"
    )
    assert set(root.parent.rglob("*")) == before


class FailingWriter(FileOutput):
    """Starts writing its file, then fails, as a full disk would."""

    name = "failing_writer"
    title = "Fail while writing"
    Params = FileOutputParams

    def write(self, ctx, frame, temporary, appending):
        temporary.write_text("id,na")
        raise OSError(28, "No space left on device")


def test_a_write_that_fails_leaves_no_folder_it_made_and_keeps_those_it_found(root):
    (root / "out").mkdir()
    (root / "out" / "kept.csv").write_text(PEOPLE)
    before = set(root.parent.rglob("*"))
    registry = Registry([CsvInput, FailingWriter])
    document = copy_pipeline(
        {"path": "people.csv"}, {"path": "out/new/deeper/result.csv"}, "failing_writer"
    )
    result, _ = run(document, root, registry)
    assert (
        result.nodes["write"].error
        == "cannot write 'out/new/deeper/result.csv': no space left on device"
    )
    assert set(root.parent.rglob("*")) == before


def test_a_failed_write_leaves_a_new_folder_that_another_write_is_using(root):
    """One run makes `out/new`, another starts writing there, then the first fails: the
    folder stays, and the second run's file is published."""
    area = FileArea(root)
    with contextlib.ExitStack() as later:
        with pytest.raises(OSError), staged_file(area, "failing", "out/new/a.csv", "overwrite"):
            theirs = later.enter_context(staged_file(area, "other", "out/new/b.csv", "overwrite"))
            raise OSError(28, "No space left on device")
        theirs.temporary.write_text(PEOPLE)
        theirs.publish()
    assert [path.name for path in (root / "out" / "new").iterdir()] == ["b.csv"]


class TemporaryRecorder(FileOutput):
    """Writes like the file outputs do, remembering the temporary file it was given."""

    name = "temporary_recorder"
    title = "Record the temporary file"
    Params = FileOutputParams
    seen: list[Path] = []

    def write(self, ctx, frame, temporary, appending):
        self.seen.append(temporary)
        frame.to_csv(temporary, index=False)


def test_a_temporary_file_is_beside_its_target_and_named_after_the_run(root):
    registry = Registry([CsvInput, TemporaryRecorder])
    document = copy_pipeline(
        {"path": "people.csv"}, {"path": "out/result.csv"}, "temporary_recorder"
    )
    result, _ = run(document, root, registry, run_id=4711)
    assert result.ok
    [temporary] = TemporaryRecorder.seen
    assert temporary.parent == root / "out"
    assert re.fullmatch(r"\.result\.csv\.4711\.[0-9a-f]{12}\.tmp", temporary.name)
    assert not temporary.exists() and (root / "out" / "result.csv").read_text() == PEOPLE


def test_a_run_without_an_id_names_its_temporaries_after_the_id_it_is_given(root):
    """The CLI's runs have no id of their own: the executor's generated one is used."""
    TemporaryRecorder.seen.clear()
    registry = Registry([CsvInput, TemporaryRecorder])
    document = copy_pipeline({"path": "people.csv"}, {"path": "x.csv"}, "temporary_recorder")
    result, _ = run(document, root, registry)
    [temporary] = TemporaryRecorder.seen
    assert temporary.name.split(".")[3] == result.run_id


def age(path: Path, seconds: float) -> Path:
    old = time.time() - seconds
    os.utime(path, (old, old))
    return path


def test_stale_temporaries_of_ended_runs_are_removed_and_a_running_runs_are_kept(root):
    (root / "out").mkdir()
    killed = temporary_path(root / "out" / "result.csv", 7)
    running = temporary_path(root / "out" / "result.csv", 8)
    unknown_recent = temporary_path(root / "result.csv", "cli-run")
    for path in (killed, running, unknown_recent):
        path.write_text("half")
    unknown_old = temporary_path(root / "old.csv", "gone")
    unknown_old.write_text("half")
    age(unknown_old, UNKNOWN_RUN_GRACE_S + 60)
    lookalike = root / ".notes.tmp"
    lookalike.write_text("mine")
    statuses = {"7": True, "8": False}

    removed = remove_stale_temporaries(root, statuses.get)

    assert sorted(removed) == sorted([killed, unknown_old])
    assert not killed.exists() and not unknown_old.exists()
    assert running.exists() and unknown_recent.exists() and lookalike.exists()
    assert (root / "people.csv").read_text() == PEOPLE


FAILING = {
    "an existing file with error_if_exists": (
        {"path": "people.csv"}, {"path": "people.csv", "mode": "error_if_exists"}, "csv_output",
        "write: 'people.csv' already exists and mode is error_if_exists",
    ),
    "a missing input file": (
        {"path": "nowhere.csv"}, {"path": "out.csv"}, "csv_output",
        "read: input file 'nowhere.csv' not found under the data root",
    ),
    "an input folder of no CSV files": (
        {"path": "folder"}, {"path": "out.csv"}, "csv_output",
        "read: folder 'folder' holds no file ending in .csv, .tsv or .txt",
    ),
    "an output inside a file": (
        {"path": "people.csv"}, {"path": "people.csv/out.csv"}, "csv_output",
        "write: cannot write 'people.csv/out.csv': a part of its folder path is a file",
    ),
    "a parquet output inside a file": (
        {"path": "people.csv"}, {"path": "people.csv/out.parquet"}, "parquet_output",
        "write: cannot write 'people.csv/out.parquet': a part of its folder path is a file",
    ),
    "an output over a folder": (
        {"path": "people.csv"}, {"path": "folder"}, "json_output",
        "write: path: 'folder' is a folder",
    ),
    "a CSV file that is not text": (
        {"path": "garbage.bin", "encoding": "ascii"}, {"path": "out.csv"}, "csv_output",
        "read: cannot read 'garbage.bin' as CSV",
    ),
    "a Parquet file that is not one": (
        {"operator": "parquet_input", "path": "people.csv"}, {"path": "out.csv"}, "csv_output",
        "read: cannot read 'people.csv' as Parquet",
    ),
    "an Excel workbook that is not one": (
        {"operator": "excel_input", "path": "people.csv"}, {"path": "out.csv"}, "csv_output",
        "read: cannot read 'people.csv' as an Excel workbook",
    ),
    "a JSON file that is not one": (
        {"operator": "json_input", "path": "people.csv"}, {"path": "out.csv"}, "csv_output",
        "read: cannot read 'people.csv' as JSON",
    ),
    "an Excel input folder of no workbooks": (
        {"operator": "excel_input", "path": "folder"}, {"path": "out.csv"}, "csv_output",
        "read: folder 'folder' holds no file ending in .xlsx",
    ),
}  # fmt: skip


@pytest.mark.parametrize(("read", "write", "operator", "expected"), FAILING.values(), ids=FAILING)
def test_error_messages_name_files_relative_to_the_data_root(root, read, write, operator, expected):
    (root / "folder").mkdir()
    (root / "garbage.bin").write_bytes(bytes(range(256)) * 4)
    result, sink = run(copy_pipeline(dict(read), dict(write), operator), root)
    messages = [f"{e['node']}: {e['error']}" for e in sink.of_type("node_status") if e.get("error")]
    assert result.status == "failed" and messages
    assert messages[-1].startswith(expected), messages
    for message in messages:
        assert str(root) not in message and str(root.resolve()) not in message, message


def test_a_preview_error_names_the_file_relative_to_the_data_root(root):
    document = copy_pipeline({"path": "nowhere.csv"}, {"path": "out.csv"})
    with pytest.raises(NodeExecutionError) as caught:
        preview(document, "read", data_root=root)
    assert "'nowhere.csv' not found" in str(caught.value)
    assert str(root) not in str(caught.value)
