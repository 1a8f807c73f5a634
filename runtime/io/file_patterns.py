"""Input paths that name several files: a folder, or a pattern such as `sales/2026-*.parquet`
or `logs/**/*.csv`.

An input's path names one file; a folder, meaning the files directly in it whose names end as
the operator's files do (`.csv`, `.parquet` ...); or, when it holds a wildcard, the files it
matches: `*` and `?` match within one name, `[...]` one character of a set (`[!...]`: not of
it), and a part that is `**` any number of folders, none included. The files come in sorted
path order and are named as the document would name them (`sales/2026-01.parquet`), never by
the server's folders. Each one is resolved through the `FileArea` as a single path is: a
symbolic link that leads out of the area is refused, not skipped, so that a run never reads
less than its pattern says without telling. (A file reached through no link is inside the
folder the walk started from, itself resolved, so only the others are resolved again: a
listing of 10,000 files takes 0.10 s instead of 0.75 s, bench/file_patterns.py.)

The work is bounded, since a pattern is user text: at most `MAX_PATTERN_LENGTH` characters,
no `..` part, at most `MAX_ENTRIES` folder entries looked at and `MAX_FILES` files matched.
Names starting with `.` (the temporary files of outputs being written, the system's folder)
are matched only by a part that starts with `.` too. `**` does not follow links to folders (a
loop of links would never end); the other parts do.

Belongs here: which files an input path names. Does not belong here: reading them
(runtime/operators/file_common.py) or DuckDB's scans of them (runtime/backends/duckdb/scans.py).
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from fnmatch import translate
from pathlib import Path, PurePosixPath

from runtime.errors import OperatorError, ParamsError, UnsafePathError
from runtime.io.paths import SHARED, SYSTEM, FileArea
from runtime.suggestions import suggestion

MAX_FILES = 10_000
"""Files one input path may name; a pattern matching more is refused, not cut short."""
MAX_PATTERN_LENGTH = 1_000
"""Characters of a pattern (the Files API takes paths of the same length)."""
MAX_ENTRIES = 200_000
"""Folder entries one pattern may look at (a `**` over a big tree stops there)."""
WILDCARDS = "*?["
RECURSIVE = "**"
MAX_SUGGESTION_ENTRIES = 2_000
"""Folder entries looked at to suggest a name for a missing file (the message stays quick)."""


class MissingFile(ParamsError):
    """An input file that is not there: a problem of the node's `path` field (the editor shows
    it under Path), worded as before plus the closest file's name, and retried as before (the
    file may arrive)."""

    retryable = True

    def __init__(self, path: str, message: str):
        super().__init__("path", message)
        self.args = (message,)  # a run's message reads as before, without "path: "
        self.path = path

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class InputFile:
    """One file an input reads: `name` as the document names it, `location` where it is."""

    name: str
    location: Path


def is_pattern(path: str) -> bool:
    """Whether `path` holds a wildcard, and so names the files it matches."""
    return any(character in path for character in WILDCARDS)


def input_files(area: FileArea, path: str, endings: tuple[str, ...]) -> list[InputFile]:
    """The files `path` names in `area`, in sorted path order: the file itself, a folder's
    files ending in one of `endings`, or a pattern's matches. `UnsafePathError` when a path
    leads out of the area, `OperatorError` when it names no file or too many."""
    if is_pattern(path):
        return _matches(area, path)
    location = area.resolve(path)
    if location.is_dir():
        return _in_folder(area, path, location, endings)
    if not location.is_file():
        message = f"input file '{path}' not found under the {area.called}"
        hint = suggestion(path, nearby_files(area, path))
        raise MissingFile(path, f"{message}; {hint}" if hint else message)
    return [InputFile(path, location)]


def nearby_files(area: FileArea, path: str) -> list[str]:
    """The files under the nearest folder of `path` that exists (its own, else the one above,
    up to the area's top), named as a document names them: what "did you mean" picks from.
    At most `MAX_SUGGESTION_ENTRIES` entries are looked at; hidden names are left out."""
    parts = list(_parts(path))[:-1]
    while True:
        try:
            folder = area.resolve(_joined_path(parts) or ".")
        except (UnsafePathError, OSError):
            return []
        if folder.is_dir():
            break
        if not parts:
            return []
        parts.pop()
    at_top = not parts and area.shared is not None
    found, left, pending = [], MAX_SUGGESTION_ENTRIES, [(folder, tuple(parts))]
    while pending and left > 0:
        current, prefix = pending.pop()
        try:
            with os.scandir(current) as listing:  # a huge folder is read only this far
                entries = list(itertools.islice(listing, left))
        except OSError:
            continue
        left -= len(entries)
        for entry in entries:
            if entry.name.startswith(".") or (at_top and not prefix and entry.name == SHARED):
                continue
            named = (*prefix, entry.name)
            if entry.is_dir(follow_symlinks=False):
                pending.append((Path(entry.path), named))
            elif entry.is_file():
                found.append(_joined_path(named))
    return found


def _in_folder(
    area: FileArea, path: str, folder: Path, endings: tuple[str, ...]
) -> list[InputFile]:
    found = sorted(
        ((entry.name,), entry.is_symlink())
        for entry in _entries(folder, _Budget(path))
        if not entry.name.startswith(".")
        and entry.name.lower().endswith(endings)
        and entry.is_file()
    )
    if not found:
        listed = ", ".join(endings[:-1]) + f" or {endings[-1]}" if len(endings) > 1 else endings[0]
        raise OperatorError(f"folder '{path}' holds no file ending in {listed}")
    _refuse_too_many(path, len(found))
    return _checked(area, path, _prefix(area, _parts(path), folder), folder, found)


def _matches(area: FileArea, pattern: str) -> list[InputFile]:
    found = matching_files(area, pattern)
    if not found:
        hint = " (a [ starts a set of characters: write [[] to match a [ itself)"
        raise OperatorError(f"no files match '{pattern}'{hint if '[' in pattern else ''}")
    return found


def matching_files(area: FileArea, pattern: str) -> list[InputFile]:
    """The files the wildcard `pattern` matches in `area`, in sorted path order, maybe none (a
    loop over them may run zero times); refused as `input_files` refuses."""
    parts = _pattern_parts(area, pattern)
    literal = []
    while parts and not is_pattern(parts[0]):
        literal.append(parts.pop(0))
    try:
        base = area.resolve(_joined_path(literal) or ".")
    except UnsafePathError:
        raise UnsafePathError(
            f"pattern '{pattern}' is outside the {area.called}; "
            "use a relative path inside it (relative paths start there)"
        ) from None
    at_top = area.shared is not None and base == Path(area.root).resolve()
    found = []
    if base.is_dir():
        for match in _walk(base, parts, _Budget(pattern), skip_shared=at_top):
            found.append(match)
            _refuse_too_many(pattern, len(found))
    found.sort()
    return _checked(area, pattern, _prefix(area, literal, base), base, found)


def _pattern_parts(area: FileArea, pattern: str) -> list[str]:
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise OperatorError(
            f"the pattern is {len(pattern):,} characters long; at most {MAX_PATTERN_LENGTH:,}"
        )
    parts = _parts(pattern)
    if ".." in parts:
        raise UnsafePathError(
            f"pattern '{pattern}' goes up a folder ('..'); a pattern stays inside the "
            f"{area.called}: write it from there"
        )
    collapsed = []  # `**/**` means what `**` means, and would look at folders twice
    for part in parts:
        if not (part == RECURSIVE and collapsed and collapsed[-1] == RECURSIVE):
            collapsed.append(part)
    if collapsed[-1] == RECURSIVE:
        collapsed.append("*")  # `logs/**`: every file under logs
    return collapsed


def _walk(
    base: Path, parts: list[str], budget: _Budget, *, skip_shared: bool
) -> Iterator[tuple[tuple[str, ...], bool]]:
    """Each file under `base` that `parts` match: its parts below `base`, and whether a
    symbolic link is on the way to it."""
    matchers = [None if part == RECURSIVE else _matcher(part) for part in parts]
    pending = [(base, (), 0, False)]
    while pending:
        folder, relative, index, linked = pending.pop()
        for entry in _entries(folder, budget):
            if skip_shared and not relative and entry.name == SHARED:
                continue  # `shared/...` names the shared folder, not this one
            inside, matched = (*relative, entry.name), index
            if matchers[index] is None:  # `**`: no folder, or this one and as many more as it takes
                if not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False):
                    pending.append((Path(entry.path), inside, index, linked))
                matched = index + 1
            if not matchers[matched](entry.name) or _hidden(entry.name, parts[matched]):
                continue
            through = linked or entry.is_symlink()
            if matched == len(parts) - 1:
                if entry.is_file():
                    yield inside, through
            elif entry.is_dir():
                pending.append((Path(entry.path), inside, matched + 1, through))


class _Budget:
    """The folder entries a pattern may still look at."""

    def __init__(self, pattern: str):
        self.pattern = pattern
        self.left = MAX_ENTRIES

    def spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise OperatorError(
                f"'{self.pattern}' looks through more than {MAX_ENTRIES:,} files and folders; "
                "narrow it (fewer `**`, a folder to start from)"
            )


def _entries(folder: Path, budget: _Budget) -> Iterator[os.DirEntry]:
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                budget.spend()
                yield entry
    except OSError as error:
        reason = (error.strerror or "not readable").lower()
        raise OperatorError(f"cannot list a folder of '{budget.pattern}': {reason}") from error


def _matcher(part: str):
    if not is_pattern(part):
        return part.__eq__
    return re.compile(translate(part), re.DOTALL).match


def _hidden(name: str, part: str) -> bool:
    return name.startswith(".") and not part.startswith(".")


def _checked(area: FileArea, written: str, prefix: tuple, base: Path, found) -> list[InputFile]:
    """The files `found` under `base` ((parts, linked) pairs), named from `prefix`. A file
    reached through no symbolic link is where its parts say, inside `base`; one reached
    through a link is resolved in the area, and refused, naming it, if the link leads out."""
    files = []
    system = Path(area.root).resolve() / SYSTEM
    for relative, linked in found:
        name = _joined_path((*prefix, *relative))
        if not linked:
            location = base.joinpath(*relative)
            if system in location.parents:
                raise UnsafePathError(
                    f"'{name}' (named by '{written}') is in the folder {SYSTEM}, which "
                    "Pipewright keeps for itself; narrow the pattern"
                )
            files.append(InputFile(name, location))
            continue
        try:
            files.append(InputFile(name, area.resolve(name)))
        except UnsafePathError:
            raise UnsafePathError(
                f"'{name}' (named by '{written}') leads outside the {area.called} through a "
                "symbolic link; remove the link or narrow the pattern"
            ) from None
    return files


def _refuse_too_many(written: str, count: int) -> None:
    if count > MAX_FILES:
        raise OperatorError(
            f"'{written}' names more than {MAX_FILES:,} files; narrow the pattern or split "
            "the files into folders"
        )


def _prefix(area: FileArea, written: tuple[str, ...] | list[str], folder: Path) -> tuple:
    """The folder as the names of its files start: as written, or relative to the area when
    written absolute (a document names files relative to it)."""
    if written and Path(written[0]).is_absolute():
        written = (area.display(folder),)
    return tuple(part for part in written if part != ".")


def _parts(path: str) -> tuple[str, ...]:
    return PurePosixPath(path.replace("\\", "/")).parts


def _joined_path(parts) -> str:
    return str(PurePosixPath(*parts)) if parts else ""
