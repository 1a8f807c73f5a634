"""The script's own helpers: outputs written whole or not at all, paths kept in the data root,
options read as their defaults' types."""

from __future__ import annotations

import argparse

import pytest

from runtime.compile.support import PipelineError, boolean_option, data_path, staged


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path):
    (tmp_path / "out.csv").write_text("old\n")
    with pytest.raises(RuntimeError), staged(tmp_path, "out.csv", "overwrite") as (temporary, _):
        temporary.write_text("half")
        raise RuntimeError("killed mid-write")
    assert (tmp_path / "out.csv").read_text() == "old\n"
    assert [path.name for path in tmp_path.iterdir()] == ["out.csv"]


def test_append_starts_from_a_copy_and_replaces_the_file_in_one_step(tmp_path):
    (tmp_path / "log.csv").write_text("a\n1\n")
    with staged(tmp_path, "log.csv", "append") as (temporary, appending):
        assert appending and temporary.read_text() == "a\n1\n"
        temporary.write_text("a\n1\n2\n")
        assert (tmp_path / "log.csv").read_text() == "a\n1\n"  # not yet
    assert (tmp_path / "log.csv").read_text() == "a\n1\n2\n"


def test_error_if_exists_refuses_an_existing_file_and_a_folder_is_never_a_file(tmp_path):
    (tmp_path / "out.csv").write_text("x")
    (tmp_path / "folder").mkdir()
    with pytest.raises(PipelineError, match="already exists"):
        staged(tmp_path, "out.csv", "error_if_exists").__enter__()
    with pytest.raises(PipelineError, match="is a folder"):
        staged(tmp_path, "folder", "overwrite").__enter__()


@pytest.mark.parametrize("path", ["../x.csv", "/etc/passwd", "a/../../x.csv", "~/x.csv"])
def test_a_path_leaving_the_data_root_is_refused(tmp_path, path):
    with pytest.raises(PipelineError, match="outside the data root"):
        data_path(tmp_path / "root", path)


def test_a_boolean_option_reads_true_or_false_only():
    assert boolean_option("True") is True and boolean_option("0") is False
    with pytest.raises(argparse.ArgumentTypeError):
        boolean_option("maybe")
