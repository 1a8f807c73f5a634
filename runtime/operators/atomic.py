"""Writing output files so that a failed or cancelled run never leaves half a file.

The data goes to a temporary file beside the target (same folder, so the final rename is
atomic, and inside the data root), renamed over the target only through `ctx.commit`, i.e.
only if the node was not stopped first. Append copies the existing file before adding to it,
so even an append is all or nothing. A temporary file is named `.<name>.<run id>.<random>.tmp`:
a process killed mid-write leaves it behind, and `remove_stale_temporaries` clears those of
runs that have ended, never those of a run still going.

Messages name the file by the path the user gave, never by its location on the server.
"""

from __future__ import annotations

import os
import re
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from runtime.errors import OperatorError, ParamsError
from runtime.io.paths import FileArea
from runtime.operators.context import NodeContext

WriteMode = Literal["overwrite", "append", "error_if_exists"]

UNKNOWN_RUN_GRACE_S = 24 * 3600
"""A temporary file of a run nobody knows (another process's, say) is stale once this old."""
_TEMPORARY = re.compile(r"^\.(?P<name>.+)\.(?P<run>[A-Za-z0-9_-]+)\.[0-9a-f]{12}\.tmp$")


def write_atomically(
    ctx: NodeContext, relative: str, mode: WriteMode, write: Callable[[Path, bool], None]
) -> int:
    """Call `write(temporary_path, appending)`, then publish the file at `relative`; its size."""
    with staged_file(ctx.files, ctx.run_id, relative, mode) as staged:
        try:
            if staged.appending:
                staged.start_from_existing()
            write(staged.temporary, staged.appending)
            ctx.check_cancelled()
            size = staged.temporary.stat().st_size
            ctx.commit(staged.publish)
        except OSError as error:
            raise write_error(relative, error) from error
        return size


@dataclass(frozen=True)
class Staged:
    """A file being written at `temporary` beside its target `path`, until `publish`."""

    path: Path
    relative: str
    mode: WriteMode
    temporary: Path
    appending: bool
    """The rows are added to the existing file (mode append, and the file exists)."""

    def start_from_existing(self) -> None:
        """Copy the existing file to the temporary one, for the new rows to follow it."""
        shutil.copyfile(self.path, self.temporary)

    def publish(self) -> None:
        """Replace the target by the temporary file, in one step (call it under a commit)."""
        _refuse_existing(self.path, self.mode, self.relative)
        os.replace(self.temporary, self.path)


@contextmanager
def staged_file(
    files: FileArea, run_id: str | int, relative: str, mode: WriteMode
) -> Iterator[Staged]:
    """Where to write the file at `relative` before publishing it, checked as a write in the
    area; the temporary file is removed on leaving, published or not."""
    path = files.resolve(relative, write=True)
    refuse_folder(path, relative)
    _refuse_existing(path, mode, relative)
    made = [folder for folder in path.parents if not folder.exists()]
    """The folders this write makes, the deepest first: gone again if it publishes nothing."""
    temporary = temporary_path(path, run_id)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # At once: a folder holding it is not empty, so no other failed write removes it.
        temporary.touch()
        appending = mode == "append" and path.exists()
    except OSError as error:
        _remove_empty(made)
        raise write_error(relative, error) from error
    staged = Staged(path, relative, mode, temporary, appending)
    try:
        yield staged
    finally:
        staged.temporary.unlink(missing_ok=True)
        if not path.exists():
            _remove_empty(made)


def _remove_empty(folders: list[Path]) -> None:
    """Remove `folders` (the deepest first) that are still empty; another writer's file in
    one keeps it and the folders above it."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


def write_error(relative: str, error: OSError) -> OperatorError:
    """The message of an OS error while writing `relative`, without server paths."""
    return OperatorError(f"cannot write '{relative}': {os_error_reason(error)}")


def temporary_path(path: Path, run_id: str | int) -> Path:
    """Where a run writes `path` before publishing it: beside it, named after the run."""
    run = re.sub(r"[^A-Za-z0-9_-]", "-", str(run_id))
    return path.with_name(f".{path.name}.{run}.{uuid.uuid4().hex[:12]}.tmp")


def remove_stale_temporaries(
    root: Path, is_final: Callable[[str], bool | None], *, now: float | None = None
) -> list[Path]:
    """Delete the temporary files under `root` left by runs that ended; return them.

    `is_final(run_id)` is True for a run in a final state, False for one still queued or
    running (its files are kept), None for a run it does not know: its files go once older
    than `UNKNOWN_RUN_GRACE_S`.
    """
    now = time.time() if now is None else now
    removed = []
    for folder, _, names in os.walk(root):
        for name in names:
            match = _TEMPORARY.match(name)
            if match is None:
                continue
            path = Path(folder, name)
            final = is_final(match["run"])
            if final is None:
                final = now - path.lstat().st_mtime > UNKNOWN_RUN_GRACE_S
            if final:
                path.unlink(missing_ok=True)
                removed.append(path)
    return removed


def refuse_folder(path: Path, relative: str) -> None:
    """A `ParamsError` at `path` if the file to write at `relative` is an existing folder."""
    if path.is_dir():
        raise ParamsError(
            "path", f"'{relative}' is a folder; give the name of a file to write inside it"
        )


def _refuse_existing(path: Path, mode: WriteMode, relative: str) -> None:
    if mode == "error_if_exists" and path.exists():
        raise OperatorError(
            f"'{relative}' already exists and mode is error_if_exists; "
            "choose overwrite or append, or another path"
        )


def os_error_reason(error: OSError) -> str:
    """What went wrong, without the file names the OS puts in its message (server paths)."""
    if isinstance(error, NotADirectoryError | FileExistsError):
        return "a part of its folder path is a file, not a folder"
    if error.strerror:
        return error.strerror.lower()  # without `filename`, which the OS's message adds
    return str(error) or type(error).__name__
