"""The result store is out of reach of every path a document writes: file operators, patterns
and DuckDB scans refuse the data root's `.pipewright` folder."""

from __future__ import annotations

import pytest

from runtime.errors import UnsafePathError
from runtime.paths import FileArea


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
