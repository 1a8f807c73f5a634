"""Temporary output files of runs that were killed are removed when a server starts."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.utils import timezone

from editor.models import Pipeline, Run
from editor.runs.stale_outputs import remove_stale_outputs
from editor.workspaces.membership import personal_workspace
from runtime.io.paths import SCRATCH
from runtime.operators.atomic import temporary_path
from tests.editor.conftest import make_user

pytestmark = pytest.mark.django_db(transaction=True)


def dead_pid() -> int:
    """The id of a process of this host that has exited."""
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True, check=True)  # fmt: skip
    return int(finished.stdout)


def runs_with_temporaries(root: Path) -> dict[str, Path]:
    """Runs in the database as a killed server and a live one leave them, each with a file."""
    writer = make_user("writer")
    pipeline = Pipeline.objects.create(
        owner=writer, workspace=personal_workspace(writer), name="writes"
    )
    now = timezone.now()
    killed = Run.objects.create(
        pipeline=pipeline, document={}, status="running", host=socket.gethostname(),
        pid=dead_pid(), heartbeat_at=now,
    )  # fmt: skip
    live = Run.objects.create(
        pipeline=pipeline, document={}, status="running", host="another-host", heartbeat_at=now
    )
    failed = Run.objects.create(pipeline=pipeline, document={}, status="failed")
    (root / "out").mkdir(exist_ok=True)
    files = {
        "killed": temporary_path(root / "out" / "a.csv", killed.pk),
        "live": temporary_path(root / "out" / "b.csv", live.pk),
        "failed": temporary_path(root / "c.csv", failed.pk),
        "unknown": temporary_path(root / "d.csv", "cli0123"),
    }
    for path in files.values():
        path.write_text("half")
    return files


def test_a_killed_runs_temporary_file_is_removed_and_a_running_runs_is_kept(tmp_path, settings):
    settings.PIPEWRIGHT_DATA_ROOT = tmp_path
    files = runs_with_temporaries(tmp_path)
    removed = remove_stale_outputs()
    assert sorted(removed) == sorted([files["killed"], files["failed"]])
    assert files["live"].exists() and files["unknown"].exists()


def test_a_killed_runs_spill_folder_is_removed_and_a_running_runs_is_kept(tmp_path, settings):
    settings.PIPEWRIGHT_DATA_ROOT = tmp_path
    files = runs_with_temporaries(tmp_path)
    scratch = tmp_path / SCRATCH
    folders = {}
    for name, path in files.items():
        run_id = path.name.split(".")[-3]  # `.<name>.<run id>.<random>.tmp`
        folders[name] = scratch / run_id / "segment-1"
        folders[name].mkdir(parents=True)
        (folders[name] / "duckdb_temp_block-1.block").write_bytes(b"spilled")
    removed = remove_stale_outputs()
    assert {folders["killed"].parent, folders["failed"].parent} <= set(removed)
    assert not folders["killed"].exists() and not folders["failed"].exists()
    assert folders["live"].exists() and folders["unknown"].exists()  # a day's grace


@pytest.mark.server
def test_a_server_removes_stale_temporaries_when_it_starts(tmp_path, start_server):
    root = tmp_path / "data"
    root.mkdir()
    files = runs_with_temporaries(root)
    start_server(data_root=root)
    deadline = time.monotonic() + 20
    while files["killed"].exists() or files["failed"].exists():
        assert time.monotonic() < deadline, os.listdir(root / "out")
        time.sleep(0.05)
    assert files["live"].exists() and files["unknown"].exists()
