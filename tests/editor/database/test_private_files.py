"""The files that hold every session key, password and cached result are the server's own:
`db.sqlite3` (and its `-wal`, `-shm`) 0600 from the moment SQLite creates them, the data root's
`.pipewright` folder 0700. A local database server's file functions, or another account of
the machine, read `db.sqlite3` when it was created 0644.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.editor.conftest import post_json, wait_for_run

ROOT = Path(__file__).resolve().parents[3]
WRITE_AND_LIST = """
import os
from django.db import connection
with connection.cursor() as cursor:
    cursor.execute("create table t (x int)")
    cursor.execute("insert into t values (1)")
folder = os.path.dirname(connection.settings_dict["NAME"])
for name in sorted(os.listdir(folder)):
    print(name, oct(os.stat(os.path.join(folder, name)).st_mode & 0o777))
"""


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_fresh_sqlite_database_and_its_wal_files_are_the_servers_own(tmp_path):
    """A new server process on a new file (under the usual umask 022): the file is created by
    SQLite on Django's first connection, its write-ahead files while it is open."""
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "PIPEWRIGHT_DATA_ROOT": str(tmp_path / "data"),
    }
    output = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", WRITE_AND_LIST],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        preexec_fn=lambda: os.umask(0o022),
    ).stdout
    modes = dict(line.split() for line in output.splitlines() if line.startswith("db.sqlite3"))
    assert modes == {"db.sqlite3": "0o600", "db.sqlite3-shm": "0o600", "db.sqlite3-wal": "0o600"}


@pytest.mark.django_db(transaction=True)
def test_the_data_roots_system_folder_is_the_servers_own(client, pipeline_id, data_root):
    """It holds every workspace's cached results and spilled data (made by a run)."""
    previous = os.umask(0o022)
    try:
        run = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {}).json()
        assert wait_for_run(run["id"]).status == "succeeded"
    finally:
        os.umask(previous)
    assert mode(data_root.parent / ".pipewright") == 0o700
