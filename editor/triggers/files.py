"""The files a file trigger's glob matches under the workspace folder, with what identifies
each version of one (its modification time and size), read within a bound."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from pathlib import Path, PurePosixPath

from editor.errors import ActionError

MAX_FILES = 10_000
"""Files one look reads per trigger: a glob over a huge tree stops there."""
PATTERN_MAX_LENGTH = 500


@dataclass(frozen=True)
class Seen:
    """A version of a file: its path under the folder, modification time (ns) and size."""

    path: str
    mtime_ns: int
    size: int

    @property
    def identity(self) -> str:
        return f"file:{self.path}:{self.mtime_ns}:{self.size}"

    @property
    def fields(self) -> dict:
        return {"path": self.path, "name": PurePosixPath(self.path).name}


def check_pattern(pattern: str) -> str:
    """The glob, relative to the workspace folder, or a 400 naming the field `pattern`."""
    text = pattern.strip()
    problem = None
    if not text:
        problem = "give a glob such as incoming/*.csv"
    elif len(text) > PATTERN_MAX_LENGTH:
        problem = f"a glob has at most {PATTERN_MAX_LENGTH} characters"
    elif text.startswith(("/", "\\")) or ".." in PurePosixPath(text).parts or "\\" in text:
        problem = "a glob is relative to the workspace folder and stays inside it (no / or ..)"
    if problem:
        raise ActionError(400, "invalid_trigger", problem, field="pattern")
    return text


def scan(folder: Path, pattern: str) -> list[Seen]:
    """The regular files under `folder` matching `pattern` (at most `MAX_FILES`), the oldest
    first (in a storm, they wait and the last ones are dropped), never one reached through a
    link leading outside the folder; hidden files are left out."""
    root = folder.resolve()
    found = []
    for path in islice(root.glob(pattern), MAX_FILES):
        relative = path.relative_to(root)
        if any(part.startswith(".") for part in relative.parts):
            continue
        try:
            if not path.resolve().is_relative_to(root) or not path.is_file():
                continue
            stat = path.stat()
        except OSError:  # removed or unreadable between the glob and the look
            continue
        found.append(Seen(relative.as_posix(), stat.st_mtime_ns, stat.st_size))
    return sorted(found, key=lambda seen: (seen.mtime_ns, seen.path))
