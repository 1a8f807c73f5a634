"""A run's events that the database has not taken yet, oldest first: in memory up to
`IN_MEMORY`, the rest in a file of their own under the data root's system folder.

While the database cannot be reached, a run goes on emitting events (a thousand nodes, each
with progress and log lines), and the recorder keeps every one of them until it can write
them. Memory stays bounded however long the outage lasts: once `IN_MEMORY` events wait, the
newer ones are appended to `<data root>/.pipewright/unrecorded/run-<id>.jsonl`, and read back
in order as the older ones are written. The file is deleted once nothing waits in it; one
that a killed process left is deleted at the next server start, once its run has ended
(`remove_left_behind`).
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from pathlib import Path

from editor.workspaces.membership import system_folder
from runtime import Event

IN_MEMORY = 20_000
"""Events kept in memory before the newer ones go to the file (a few MiB)."""


FOLDER = "unrecorded"
"""Under the data root's system folder."""


def remove_left_behind(run_has_ended: Callable[[str], bool | None]) -> list[Path]:
    """Delete the files of runs that ended (or that the database does not know); return them."""
    folder = system_folder() / FOLDER
    removed = []
    for path in sorted(folder.glob("run-*.jsonl")) if folder.is_dir() else ():
        if run_has_ended(path.name.removeprefix("run-").removesuffix(".jsonl")) is not False:
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


class UnwrittenEvents:
    """A queue of events: `add` at the end, `first(n)` and `drop(n)` at the start."""

    def __init__(self, run_id: int):
        self.run_id = run_id
        self._memory: deque[Event] = deque()
        self._in_file = 0
        """How many events wait in the file, after those in memory."""
        self._read_at = 0
        """Where the file's first unread line starts."""
        self._path: Path | None = None

    def __len__(self) -> int:
        return len(self._memory) + self._in_file

    def add(self, event: Event) -> None:
        """Keep `event` after every one kept so far."""
        if self._in_file == 0 and len(self._memory) < IN_MEMORY:
            self._memory.append(event)
            return
        with self._file().open("a", encoding="utf-8") as file:
            file.write(json.dumps(event, default=str) + "\n")
        self._in_file += 1

    def first(self, count: int) -> list[Event]:
        """The oldest `count` events (fewer if fewer wait), without taking them out."""
        if len(self._memory) < count and self._in_file:
            self._read_back(IN_MEMORY - len(self._memory))
        return [self._memory[index] for index in range(min(count, len(self._memory)))]

    def drop(self, count: int) -> None:
        """Forget the oldest `count` events: the database has them."""
        for _ in range(count):
            self._memory.popleft()

    def discard(self) -> None:
        """Forget everything, and delete the file (the recorder is done)."""
        self._memory.clear()
        self._in_file = 0
        self._delete_file()

    @property
    def spilled(self) -> Path | None:
        """The file the newer events wait in, while some do."""
        return self._path if self._in_file else None

    def _file(self) -> Path:
        if self._path is None:
            folder = system_folder() / FOLDER
            folder.mkdir(mode=0o700, exist_ok=True)
            self._path = folder / f"run-{self.run_id}.jsonl"
            self._path.unlink(missing_ok=True)  # a previous process's, for a run it never ended
            self._read_at = 0
        return self._path

    def _read_back(self, room: int) -> None:
        """Move up to `room` of the file's events into memory, oldest first."""
        with self._file().open("r", encoding="utf-8") as file:
            file.seek(self._read_at)
            while room > 0 and self._in_file:
                self._memory.append(json.loads(file.readline()))
                self._in_file -= 1
                room -= 1
            self._read_at = file.tell()
        if not self._in_file:
            self._delete_file()

    def _delete_file(self) -> None:
        if self._path is not None:
            self._path.unlink(missing_ok=True)
            self._path = None
