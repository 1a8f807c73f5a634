"""What an input's files are, for the key of its stored result: each file the path names, its
size, modification time and inode, and for a small file its content's hash (a file rewritten
within the clock's resolution, or copied with its time kept, still differs)."""

from __future__ import annotations

import hashlib

from pydantic import BaseModel

from runtime.io.paths import FileArea
from runtime.operators.file_checks import named_files, path_fields

HASHED_BYTES = 1 << 20
"""Files up to this size are hashed too: reading them costs less than a run's start-up."""


def files_identity(params: BaseModel, files: FileArea) -> list:
    """For each path field of `params`: every file it names, with what identifies it."""
    found = []
    for name, field, value in path_fields(params):
        for file in named_files(field, value, files):
            stat = file.location.stat()
            digest = file_hash(file.location) if stat.st_size <= HASHED_BYTES else None
            found.append([name, file.name, stat.st_size, stat.st_mtime_ns, stat.st_ino, digest])
    return found


def file_hash(location) -> str:
    """The SHA-256 of a file's content, read in blocks."""
    digest = hashlib.sha256()
    with open(location, "rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()
