"""Writing output files so that a failed or cancelled run never leaves half a file.

The data goes to a temporary file beside the target, which is renamed over the target only
through `ctx.commit`, i.e. only if the node was not stopped first. Append copies the existing
file before adding to it, so even an append is all or nothing.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from runtime.context import NodeContext
from runtime.errors import OperatorError

WriteMode = Literal["overwrite", "append", "error_if_exists"]


def write_atomically(
    ctx: NodeContext, path: Path, mode: WriteMode, write: Callable[[Path, bool], None]
) -> int:
    """Call `write(temporary_path, appending)`, then publish the file; return its size."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _refuse_existing(path, mode)
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        appending = mode == "append" and path.exists()
        if appending:
            shutil.copyfile(path, temporary)
        write(temporary, appending)
        ctx.check_cancelled()
        size = temporary.stat().st_size

        def publish() -> None:
            _refuse_existing(path, mode)
            os.replace(temporary, path)

        ctx.commit(publish)
        return size
    finally:
        temporary.unlink(missing_ok=True)


def _refuse_existing(path: Path, mode: WriteMode) -> None:
    if mode == "error_if_exists" and path.exists():
        raise OperatorError(
            f"'{path.name}' already exists and mode is error_if_exists; "
            "choose overwrite or append, or another path"
        )
