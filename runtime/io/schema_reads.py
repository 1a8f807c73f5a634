"""What is read from a file to plan with (its schema), kept by the file's identity.

A process plans the same inputs again and again: the editor's worker processes for a preview,
an explanation and the run; a CLI run when it checks that DuckDB can scan a file and again when
it renders the scan. Reading a schema means reading the file (a CSV file's first block, a
Parquet footer), which costs more than planning a small pipeline, so each reader keeps what it
read under the file's identity: its real path, device, inode, size and modification time in
nanoseconds. A file written again has a new modification time, a replaced one a new inode too.

The clock behind modification times ticks coarsely (a few milliseconds on Linux, two seconds
on some file systems): a file written twice within one tick, at the same size, keeps its
first time. So a read is kept only when the file was last written more than `SETTLED_NS`
before it, as git does with its index: a file still being written is read every time.

Belongs here: the identity and the kept reads. Does not belong here: the readers themselves
(runtime/operators/*_files.py, runtime/backends/duckdb/scans.py).
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import TypeVar

MAX_KEPT = 512
"""Reads kept per process; the least recently used goes first."""
SETTLED_NS = 2_000_000_000
"""How long before a read a file must have been last written for the read to be kept."""

T = TypeVar("T")
_kept: OrderedDict[tuple, object] = OrderedDict()
_lock = threading.Lock()


def read_once(location: Path, key: Hashable, read: Callable[[], T]) -> T:
    """What `read()` returns for the file at `location`, read again only when the file changed
    (`key` says what is read, and how: a reader's name and options). The value is shared:
    callers never change it. Errors are not kept: a file that fails is read again."""
    try:
        stat = os.stat(location)
    except OSError:
        return read()  # the reader says what is wrong, in its own words
    entry = (os.fspath(location), stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, key)
    with _lock:
        if entry in _kept:
            _kept.move_to_end(entry)
            return _kept[entry]  # type: ignore[return-value]
    value = read()
    if time.time_ns() - stat.st_mtime_ns > SETTLED_NS:
        with _lock:
            _kept[entry] = value
            if len(_kept) > MAX_KEPT:
                _kept.popitem(last=False)
    return value
