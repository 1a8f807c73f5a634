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

A command-line run is a fresh process, which would read every input again (and import pyarrow to
do so: a third of a small DuckDB run's start-up). So a reader that says how to write its value
as JSON (`KeptAs`) has it kept on disk too, in the folder `kept_on_disk` names (the CLI's: the
data root's `.pipewright/schemas`), under the same identity and the same rule, plus the versions
of pyarrow (whose inference the reads are) and of `FORMAT`.

Belongs here: the identity and the kept reads. Does not belong here: the readers themselves
(runtime/operators/*_files.py, runtime/backends/duckdb/scans.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any, Generic, NamedTuple, TypeVar

MAX_KEPT = 512
"""Reads kept per process; the least recently used goes first."""
SETTLED_NS = 2_000_000_000
"""How long before a read a file must have been last written for the read to be kept."""

MAX_ON_DISK = 1_000
"""Reads kept on disk; past it, the oldest written go first."""
FORMAT = 1
"""The kept files' format: raise it when a reader's value for the same file changes."""

T = TypeVar("T")
_kept: OrderedDict[tuple, object] = OrderedDict()
_lock = threading.Lock()
_on_disk: list[Path] = []


class KeptAs(NamedTuple, Generic[T]):
    """How a reader's value is written as JSON and read back."""

    encode: Callable[[T], Any]
    decode: Callable[[Any], T]


@contextmanager
def kept_on_disk(folder: Path | None) -> Iterator[None]:
    """Within it, `KeptAs` reads are kept in `folder` too (created when first written), for
    later processes; with None, in this process only."""
    before = _on_disk[:]
    _on_disk[:] = [] if folder is None else [folder]
    try:
        yield
    finally:
        _on_disk[:] = before


def read_once(
    location: Path, key: Hashable, read: Callable[[], T], kept_as: KeptAs[T] | None = None
) -> T:
    """What `read()` returns for the file at `location`, read again only when the file changed
    (`key` says what is read, and how: a reader's name and options; with `kept_as`, JSON of
    strings, numbers, lists and sets). The value is shared: callers never change it. Errors
    are not kept: a file that fails is read again."""
    try:
        stat = os.stat(location)
    except OSError:
        return read()  # the reader says what is wrong, in its own words
    entry = (os.fspath(location), stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, key)
    with _lock:
        if entry in _kept:
            _kept.move_to_end(entry)
            return _kept[entry]  # type: ignore[return-value]
    folder = _on_disk[0] if _on_disk and kept_as is not None else None
    path = None if folder is None else folder / f"{_digest(entry)}.json"
    value = _read_kept(path, kept_as) if path is not None else None
    if value is None:
        value = read()
    settled = time.time_ns() - stat.st_mtime_ns > SETTLED_NS
    if settled:
        with _lock:
            _kept[entry] = value
            if len(_kept) > MAX_KEPT:
                _kept.popitem(last=False)
    if settled and path is not None and not path.exists():
        _write_kept(path, kept_as.encode(value))
    return value


def _digest(entry: tuple) -> str:
    """The name of an entry's file: its identity, key and the versions that shape the value."""
    text = json.dumps([entry, FORMAT, _pyarrow_version()], default=_sorted, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _sorted(value: object) -> object:
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)  # a set's order changes from process to process
    raise TypeError(f"a kept read's key holds {type(value).__name__}")


@cache
def _pyarrow_version() -> str:
    """pyarrow's version without importing it (its inference is what is kept)."""
    from importlib.metadata import version

    return version("pyarrow")


def _read_kept(path: Path, kept_as: KeptAs[T]) -> T | None:
    """The kept value, or None when there is none (or it cannot be read: it is read again)."""
    try:
        return kept_as.decode(json.loads(path.read_bytes()))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _write_kept(path: Path, data: object) -> None:
    """Write `data` whole or not at all (processes may write the same entry at once); a folder
    that cannot be written leaves the read kept in this process only."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = path.with_name(f"{path.stem}.{os.getpid()}.{threading.get_ident()}.tmp")
        temporary.write_text(json.dumps(data), encoding="utf-8")
        os.replace(temporary, path)
        kept = sorted(path.parent.glob("*.json"), key=lambda item: item.stat().st_mtime_ns)
        for old in kept[: max(0, len(kept) - MAX_ON_DISK)]:
            old.unlink(missing_ok=True)
    except OSError:
        return
