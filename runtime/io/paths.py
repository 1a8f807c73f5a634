"""File paths confined to a file area: one folder, plus an optional shared folder.

File operators read and write only inside their area. In the CLI the area is the data root;
in the web app it is the workspace's folder, with the server's common `shared/` folder
addressed as `shared/...` (read-only unless the area says otherwise). A path that escapes,
by `..`, by being absolute elsewhere, or through a symlink that points out, is refused before
any I/O, and messages name paths as the document wrote them, never the server's own folders.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from runtime.errors import UnsafePathError

SHARED = "shared"
"""The first part of a path that names the shared folder (when the area has one)."""
SYSTEM = ".pipewright"
"""The data root's folder for the system (caches, spill files): a name no workspace can take."""
SCRATCH = Path(SYSTEM, "tmp")
"""Temporary files of runs, under the data root."""
CACHE = Path(SYSTEM, "cache")
"""The CLI's result store, under the data root (the web app keeps one per workspace)."""
SCHEMAS = Path(SYSTEM, "schemas")
"""The schemas the CLI read from the data root's files, kept for its next command while the
files are unchanged (runtime/io/schema_reads.py)."""
MAX_PATH_LENGTH = 1_000
"""Characters a path may have: the file system's own limit (4,096 bytes) counts the area's
folder too, and its error would name that folder."""
MAX_NAME_BYTES = 255
"""Bytes one file or folder name may have (Linux's and most file systems' limit)."""


@dataclass(frozen=True)
class FileArea:
    """Where a run's file paths may lead: `root`, and `shared` under the name `shared/`."""

    root: Path
    shared: Path | None = None
    shared_writable: bool = False
    called: str = "data root"
    """What messages call `root` ("workspace folder" in the web app)."""
    scratch: Path | None = None
    """Where a run keeps temporary files (DuckDB's spill files), outside every workspace;
    None: `.pipewright/tmp` under `root`."""
    cache: Path | None = None
    """The folder of the run's result store (`runtime.cache.store`); None: no store. Never
    reachable by a path a document writes: it is under `.pipewright`, which `resolve` refuses."""

    @property
    def scratch_folder(self) -> Path:
        return Path(self.scratch) if self.scratch is not None else Path(self.root) / SCRATCH

    @classmethod
    def of(cls, value: FileArea | str | Path) -> FileArea:
        """An area from a folder (the CLI's data root), or the area itself."""
        return value if isinstance(value, FileArea) else cls(Path(value))

    def resolve(self, path: str, *, write: bool = False) -> Path:
        """The real location of `path`, refusing anything outside the area (or a read-only
        shared file when `write`)."""
        parts = PurePosixPath(str(path).replace("\\", "/")).parts
        _refuse_too_long(str(path), parts)
        if self.shared is not None and parts and parts[0] == SHARED:
            if write and not self.shared_writable:
                raise UnsafePathError(
                    f"path '{path}' is in the shared folder, which is read-only; "
                    "write inside your workspace instead"
                )
            inner = Path(*parts[1:]) if parts[1:] else Path(".")
            return _inside(Path(self.shared), inner, path, "shared folder")
        resolved = _inside(Path(self.root), Path(path).expanduser(), path, self.called)
        _refuse_system(Path(self.root).resolve(), resolved, path)
        return resolved

    def display(self, location: Path) -> str:
        """`location` as a document would name it: relative to the area (or `shared/...`)."""
        location = Path(location).resolve()
        for base, prefix in ((self.root, ""), (self.shared, f"{SHARED}/")):
            if base is None:
                continue
            base = Path(base).resolve()
            if location == base or base in location.parents:
                relative = location.relative_to(base).as_posix()
                return f"{prefix}{relative}" if relative != "." else (prefix or ".")
        return location.name


def _refuse_too_long(written: str, parts: tuple[str, ...]) -> None:
    """Refuse what the file system would (ENAMETOOLONG) before it can, in the user's words."""
    if len(written) > MAX_PATH_LENGTH or any(
        len(part.encode(errors="surrogateescape")) > MAX_NAME_BYTES for part in parts
    ):
        shown = written if len(written) <= 60 else f"{written[:60]}…"
        raise UnsafePathError(
            f"path '{shown}' is too long: at most {MAX_PATH_LENGTH:,} characters, and "
            f"{MAX_NAME_BYTES} bytes for each file or folder name"
        )


def _refuse_system(root: Path, resolved: Path, written: str) -> None:
    """Refuse the data root's system folder (result store, spill files): no pipeline may read
    or plant what runs keep there."""
    if resolved != root and resolved.relative_to(root).parts[0] == SYSTEM:
        raise UnsafePathError(
            f"path '{written}' is in the folder {SYSTEM}, which Pipewright keeps for itself"
        )


def _inside(root: Path, candidate: Path, written: str, called: str) -> Path:
    root = root.resolve()
    if not candidate.is_absolute():
        candidate = root / candidate
    resolved = candidate.resolve()
    if resolved != root and root not in resolved.parents:
        raise UnsafePathError(
            f"path '{written}' is outside the {called}; "
            "use a relative path inside it (relative paths start there)"
        )
    return resolved
