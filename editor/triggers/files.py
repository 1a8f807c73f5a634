"""The files a file trigger's glob matches under the workspace folder, with what identifies
each version of one (its modification time and size), read within a bound."""

from __future__ import annotations

import os
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath

from editor.errors import ActionError

MAX_FILES = 10_000
"""Files one look reads per trigger: a glob over a huge tree stops there."""
MAX_WALKED_FOLDERS = 20_000
"""Folders one look reads per trigger (as the workspace's file list does)."""
MAX_RECURSIVE = 2
"""`**` parts a glob may have (each one multiplies the work of matching a path)."""
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
    elif PurePosixPath(text).parts.count("**") > MAX_RECURSIVE:
        problem = f"a glob has at most {MAX_RECURSIVE} ** parts"
    if problem:
        raise ActionError(400, "invalid_trigger", problem, field="pattern")
    return text


def scan(folder: Path, pattern: str) -> tuple[list[Seen], bool]:
    """The regular files under `folder` matching `pattern`, the oldest first (in a storm, they
    wait and the last ones are dropped), and whether the look read everything: it stops after
    `MAX_FILES` files or `MAX_WALKED_FOLDERS` folders, enters only folders the glob can match
    in, follows no link to a folder, takes no link leading outside, and leaves hidden files
    and folders out."""
    root = folder.resolve()
    wanted = PurePosixPath(pattern).parts
    found: list[Seen] = []
    walked = 0
    for place, folders, names in os.walk(root):
        walked += 1
        if walked > MAX_WALKED_FOLDERS:
            return _oldest_first(found), False
        relative = PurePosixPath(Path(place).relative_to(root).as_posix())
        base = () if relative.parts == (".",) else relative.parts
        folders[:] = sorted(
            name
            for name in folders
            if not name.startswith(".") and _may_hold((*base, name), wanted)
        )
        for name in sorted(names):
            if name.startswith(".") or not _matches((*base, name), wanted):
                continue
            if len(found) >= MAX_FILES:
                return _oldest_first(found), False
            path = Path(place) / name
            try:
                if not path.resolve().is_relative_to(root) or not path.is_file():
                    continue
                stat = path.stat()
            except OSError:  # removed or unreadable between the walk and the look
                continue
            found.append(Seen("/".join((*base, name)), stat.st_mtime_ns, stat.st_size))
    return _oldest_first(found), True


def _oldest_first(found: list[Seen]) -> list[Seen]:
    return sorted(found, key=lambda seen: (seen.mtime_ns, seen.path))


def _matches(parts: tuple[str, ...], wanted: tuple[str, ...]) -> bool:
    """Whether a path's parts match the glob's: `**` is any number of folders."""
    if not wanted:
        return not parts
    if wanted[0] == "**":
        return any(_matches(parts[skip:], wanted[1:]) for skip in range(len(parts) + 1))
    return bool(parts) and fnmatchcase(parts[0], wanted[0]) and _matches(parts[1:], wanted[1:])


def _may_hold(parts: tuple[str, ...], wanted: tuple[str, ...]) -> bool:
    """Whether a folder's parts can lead to a match of the glob's (it is worth entering)."""
    if not parts:
        return bool(wanted)
    if not wanted:
        return False
    if wanted[0] == "**":
        return True
    return fnmatchcase(parts[0], wanted[0]) and _may_hold(parts[1:], wanted[1:])
