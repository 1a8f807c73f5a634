"""Spill folders that runs left behind: `<data root>/.pipewright/tmp/<run id>/`.

A DuckDB segment removes its spill folder when it ends; a run whose process was killed
cannot. At server start, the folders of runs in a final state go, those of runs still
active stay, and those of runs the database does not know (the CLI's) go once a day old,
as the temporary output files do (runtime/operators/atomic.py).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

from runtime.operators.atomic import UNKNOWN_RUN_GRACE_S


def remove_stale_spill_folders(
    scratch: Path, is_final: Callable[[str], bool | None], *, now: float | None = None
) -> list[Path]:
    """Delete the run folders under `scratch` of runs that ended; return them."""
    now = time.time() if now is None else now
    removed = []
    for folder in sorted(scratch.iterdir()) if scratch.is_dir() else ():
        if not folder.is_dir() or folder.is_symlink():
            continue
        final = is_final(folder.name)
        if final is None:
            final = now - folder.lstat().st_mtime > UNKNOWN_RUN_GRACE_S
        if final:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed
