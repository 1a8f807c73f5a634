"""The embedded SQLite database file is readable by the server's own account only.

It holds every session key and each connection's encrypted password; SQLite creates it
(Django connects on first use) with the process's umask, usually 0644. On each new connection
the file, and its `-wal` and `-shm`, are made 0600; SQLite gives the write-ahead files it
creates later the database file's own mode.
"""

from __future__ import annotations

import contextlib
import os

from django.db.backends.signals import connection_created
from django.dispatch import receiver

PRIVATE = 0o600


@receiver(connection_created)
def keep_the_database_file_private(sender, connection, **kwargs) -> None:
    if connection.vendor != "sqlite":
        return
    name = str(connection.settings_dict["NAME"])
    if name == ":memory:" or name.startswith("file:"):
        return
    for path in (name, f"{name}-wal", f"{name}-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.chmod(path, PRIVATE)
