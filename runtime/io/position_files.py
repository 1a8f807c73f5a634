"""The CLI's positions of incremental inputs: one JSON file per pipeline document, by node id.

By default `<data root>/.pipewright/positions/<document file name>.json` (under `.pipewright`,
so no file operator reads or writes it); `--positions FILE` names another. It is read before
a run and rewritten, atomically, only when the whole run succeeded: a failed or cancelled run
leaves it as it was, and the next run reads the same rows again.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from runtime.errors import PipewrightError
from runtime.io.paths import SYSTEM

POSITIONS = Path(SYSTEM, "positions")


class PositionFileError(PipewrightError):
    """The positions file cannot be read as positions."""

    retryable = False


def default_positions_file(data_root: Path, document: Path) -> Path:
    return data_root / POSITIONS / f"{document.stem}.json"


def read_positions(path: Path) -> dict[str, Any]:
    """The stored positions by node id (none when the file does not exist yet)."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise PositionFileError(f"positions file '{path.name}' is not readable: {error}") from None
    if not isinstance(found, dict):
        raise PositionFileError(f"positions file '{path.name}' must hold an object by node id")
    return found


def write_positions(path: Path, positions: dict[str, Any]) -> None:
    """Replace the file with `positions`, all at once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".positions-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            json.dump(positions, file, indent=2, sort_keys=True, default=str)
        os.replace(temporary, path)
    finally:
        Path(temporary).unlink(missing_ok=True)
