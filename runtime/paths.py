"""File paths confined to the data root.

File operators read and write only under one folder. A path that escapes it, by `..`, by
being absolute elsewhere, or through a symlink that points out, is refused before any I/O.
"""

from __future__ import annotations

from pathlib import Path

from runtime.errors import UnsafePathError


def resolve_under(root: Path, path: str) -> Path:
    """The real location of `path` (relative to `root`), refusing anything outside `root`."""
    root = Path(root).resolve()
    candidate = Path(path).expanduser()
    if not candidate.is_absolute():
        candidate = root / candidate
    resolved = candidate.resolve()
    if resolved != root and root not in resolved.parents:
        raise UnsafePathError(
            f"path '{path}' is outside the data root '{root}'; "
            "use a path inside the data root (relative paths start there)"
        )
    return resolved
