"""The result store is out of reach of every path a document writes: file operators, patterns
and DuckDB scans refuse the data root's `.pipewright` folder."""

from __future__ import annotations

import pytest

from runtime.errors import UnsafePathError
from runtime.io.paths import FileArea


@pytest.mark.parametrize(
    "path",
    [
        ".pipewright/cache/ab/x.parquet",
        "./.pipewright/tmp",
        "sub/../.pipewright/cache",
        ".pipewright",
    ],
)
def test_the_system_folder_is_refused_for_reading_and_writing(tmp_path, path):
    (tmp_path / ".pipewright" / "cache").mkdir(parents=True)
    area = FileArea(tmp_path)
    for write in (False, True):
        with pytest.raises(UnsafePathError, match="Pipewright keeps for itself"):
            area.resolve(path, write=write)


def test_a_symlink_into_the_system_folder_is_refused(tmp_path):
    (tmp_path / ".pipewright" / "cache").mkdir(parents=True)
    (tmp_path / "innocent").symlink_to(tmp_path / ".pipewright" / "cache")
    with pytest.raises(UnsafePathError, match="Pipewright keeps for itself"):
        FileArea(tmp_path).resolve("innocent/ab.parquet")


def test_other_dot_folders_stay_reachable(tmp_path):
    assert FileArea(tmp_path).resolve(".pipewrightish/x.csv") == tmp_path / ".pipewrightish/x.csv"


def test_a_csv_input_path_into_the_store_is_refused_before_the_run(tmp_path):
    from runtime.errors import PipelineValidationError
    from tests.runtime.cache.runs import run, seed_document, write_data

    write_data(tmp_path)
    run(seed_document(), tmp_path)
    (entry,) = [p for p in (tmp_path / ".pipewright" / "cache").rglob("*.parquet")][:1]
    document = seed_document()
    document["nodes"][0] = {
        "id": "users",
        "operator": "parquet_input",
        "params": {"path": entry.relative_to(tmp_path).as_posix()},
    }
    for backend in ("pandas", "duckdb"):
        with pytest.raises(PipelineValidationError, match="Pipewright keeps for itself"):
            run(document, tmp_path, backend=backend)


@pytest.mark.parametrize(
    "pattern", [".p*/**/*.parquet", ".pipewrigh?/cache/*/*.parquet", "./.p*/**/*.parquet"]
)
def test_a_pattern_that_reaches_the_store_is_refused(tmp_path, pattern):
    from runtime.io.file_patterns import input_files
    from tests.runtime.cache.runs import run, seed_document, write_data

    write_data(tmp_path)
    run(seed_document(), tmp_path)
    with pytest.raises(UnsafePathError, match="Pipewright keeps for itself"):
        input_files(FileArea(tmp_path), pattern, (".parquet",))
