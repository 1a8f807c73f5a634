"""The result store: node results as Parquet files named by their content key.

An entry is `<folder>/<key[:2]>/<key>.parquet`, with a small JSON record beside it
(`<key>.json`: when it was stored, and for an output node what its target held once written).
Every write goes to a temporary file in `<folder>/tmp/` that is renamed into place, so a
reader sees a whole entry or none, a killed writer leaves no entry (its temporary file is
swept later), and two runs (or processes) storing the same key at once both succeed: the
contents are the same by construction. The folder is bounded by `max_bytes`
(`PIPEWRIGHT_CACHE_SIZE`): after each write the least recently used entries go until the
rest fits. Using an entry (`path_of`) sets its modification time, which is what "recently"
reads.

The store never imports pandas or DuckDB for itself: `put` takes a frame, `put_with` any
writer of a Parquet file (a DuckDB `COPY ... TO`, say).
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

DEFAULT_MAX_BYTES = 5 * 2**30
"""The store's size when `PIPEWRIGHT_CACHE_SIZE` does not say (5 GiB)."""
STALE_TEMPORARY_S = 3600
"""A temporary file this old belongs to a writer that died: the sweep removes it."""
KEY = re.compile(r"^[0-9a-f]{64}$")
"""What a key looks like (a SHA-256 in hex): anything else never becomes a path."""
SUFFIX = ".parquet"


class ResultStore:
    """Parquet results by key under `folder`, bounded to `max_bytes` (None: from the
    environment)."""

    def __init__(self, folder: Path, max_bytes: int | None = None):
        self.folder = Path(folder)
        self.max_bytes = max_bytes_from_environment() if max_bytes is None else max_bytes
        self._made: set[Path] = set()
        self._seen_bytes: int | None = None
        """The store's size at this object's last look, plus what it stored since: a put
        looks again (a scan of every entry) only when that may pass `max_bytes`, so that a
        run storing thousands of results does not scan the store thousands of times."""

    def path_of(self, key: str) -> Path | None:
        """The stored Parquet file of `key`, marked as just used; None when there is none."""
        path = self._entry(key)
        try:
            os.utime(path)
        except FileNotFoundError:
            return None
        return path

    def has(self, key: str) -> bool:
        """Whether `key` is stored, without counting as a use (as text, not a `Path`: planning
        asks this of every node, and building paths cost more than the look itself)."""
        return os.path.isfile(os.path.join(self.folder, _checked(key)[:2], key + SUFFIX))

    def put(self, key: str, frame, **fields: Any) -> Path:
        """Store a pandas frame under `key` (its dtypes come back with `pandas.read_parquet`),
        `fields` in its record."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pandas(frame, preserve_index=False)
        return self.put_with(key, lambda path: pq.write_table(table, path), **fields)

    def put_arrow(self, key: str, table, **fields: Any) -> Path:
        """Store an Arrow table under `key`, `fields` in its record."""
        import pyarrow.parquet as pq

        return self.put_with(key, lambda path: pq.write_table(table, path), **fields)

    def put_with(self, key: str, write: Callable[[Path], object], **fields: Any) -> Path:
        """Store under `key` the Parquet file that `write` writes to the path it is given (a
        temporary file, renamed into place once `write` returns), `fields` in its record."""
        temporary = self.temporary(key)
        try:
            write(temporary)
            return self.adopt(key, temporary, **fields)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise

    def temporary(self, key: str) -> Path:
        """A fresh path in the store's folder of temporary files for a writer of `key`'s file
        (for a writer that runs apart, such as a DuckDB segment); `adopt` it once written."""
        return self._temporary(key)

    def adopt(self, key: str, temporary: Path, **fields: Any) -> Path:
        """Make the finished file at `temporary` (from `temporary`) the entry of `key`, with
        `fields` in its record (`columns`: the port's columns, of which the file may hold
        only those read downstream)."""
        entry = self._entry(key)
        self._folder_made(entry.parent)
        os.replace(temporary, entry)
        self._write_record(key, {"stored": time.time(), **fields})
        if self._seen_bytes is not None:
            self._seen_bytes += entry.stat().st_size
        if self._seen_bytes is None or self._seen_bytes > self.max_bytes:
            self.evict(keep=key)
        return entry

    def record(self, key: str) -> dict[str, Any]:
        """What was recorded with `key` (`stored`: when, as a Unix time; other fields its
        writer added); empty when nothing was."""
        try:
            return json.loads(self._record(key).read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return {}

    def note(self, key: str, **fields: Any) -> None:
        """Add `fields` to the record of `key` (which need not have a Parquet file: an output
        node's key records what it wrote)."""
        self._write_record(key, fields)

    def stored_at(self, key: str) -> float | None:
        """When `key`'s result was stored (a Unix time), or None when it is not."""
        if not self.has(key):
            return None
        return self.record(key).get("stored")

    def rows(self, key: str) -> int | None:
        """How many rows `key`'s result holds (from its file's footer), or None."""
        import pyarrow.parquet as pq

        try:
            return pq.ParquetFile(self._entry(key)).metadata.num_rows
        except (OSError, ValueError):
            return None

    def columns(self, key: str) -> list[str] | None:
        """The columns `key`'s file holds (from its footer), or None when there is none."""
        import pyarrow.parquet as pq

        try:
            return pq.read_schema(self._entry(key)).names
        except (OSError, ValueError):
            return None

    def size(self) -> int:
        """The bytes the entries take."""
        return sum(size for _, size, _ in self._entries())

    def evict(self, keep: str | None = None) -> list[str]:
        """Remove least recently used entries until the rest fit in `max_bytes` (never
        `keep`), and sweep what dead writers left; the keys removed."""
        self._sweep()
        entries = sorted(self._entries(), key=lambda entry: entry[2])
        total = sum(size for _, size, _ in entries)
        removed = []
        for path, size, _ in entries:
            if total <= self.max_bytes:
                break
            key = path.name.removesuffix(SUFFIX)
            if key == keep:
                continue
            path.unlink(missing_ok=True)
            self._record(key).unlink(missing_ok=True)
            total -= size
            removed.append(key)
        self._seen_bytes = total
        return removed

    def _entries(self):
        """(path, bytes, last use) of every entry."""
        try:
            shards = list(os.scandir(self.folder))
        except FileNotFoundError:
            return
        for shard in shards:
            if len(shard.name) != 2 or not shard.is_dir(follow_symlinks=False):
                continue
            for entry in os.scandir(shard.path):
                if entry.name.endswith(SUFFIX):
                    try:
                        found = entry.stat(follow_symlinks=False)
                    except FileNotFoundError:  # evicted by another process meanwhile
                        continue
                    yield Path(entry.path), found.st_size, found.st_mtime

    def _sweep(self) -> None:
        folder = self.folder / "tmp"
        try:
            leftovers = list(os.scandir(folder))
        except FileNotFoundError:
            return
        old = time.time() - STALE_TEMPORARY_S
        for entry in leftovers:
            try:
                if entry.stat(follow_symlinks=False).st_mtime < old:
                    os.unlink(entry.path)
            except FileNotFoundError:
                continue

    def _entry(self, key: str) -> Path:
        return self.folder / _checked(key)[:2] / f"{key}{SUFFIX}"

    def _record(self, key: str) -> Path:
        return self.folder / _checked(key)[:2] / f"{key}.json"

    def _temporary(self, key: str) -> Path:
        folder = self._folder_made(self.folder / "tmp")
        return folder / f"{key}.{os.getpid()}.{uuid.uuid4().hex}.partial"

    def _write_record(self, key: str, fields: dict) -> None:
        record = {**self.record(key), **fields}
        path = self._record(key)
        self._folder_made(path.parent)
        temporary = self._temporary(key)
        try:
            temporary.write_text(json.dumps(record, sort_keys=True), encoding="utf-8")
            os.replace(temporary, path)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise

    def _folder_made(self, folder: Path) -> Path:
        """`folder`, made unless this object made it before: a run stores thousands of
        results, and asking the disk each time cost more than the writes themselves."""
        if folder not in self._made:
            folder.mkdir(parents=True, exist_ok=True)
            self._made.add(folder)
        return folder


def _checked(key: str) -> str:
    if not isinstance(key, str) or not KEY.match(key):
        raise ValueError(f"not a result key: {key!r}")
    return key


def max_bytes_from_environment(environ=None) -> int:
    """`PIPEWRIGHT_CACHE_SIZE` ("2GB", "500MiB", bytes), else `DEFAULT_MAX_BYTES`."""
    from runtime.budget import parse_bytes

    written = (os.environ if environ is None else environ).get("PIPEWRIGHT_CACHE_SIZE")
    if not written:
        return DEFAULT_MAX_BYTES
    return parse_bytes(written, "PIPEWRIGHT_CACHE_SIZE")
