"""The result store: entries by key, atomic writes, least recently used eviction, two
processes at once, and keys that never become paths elsewhere."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from runtime.cache.store import DEFAULT_MAX_BYTES, ResultStore, max_bytes_from_environment
from runtime.errors import OperatorError


def key(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def frame(rows: int = 3) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "id": pd.array(range(rows), dtype="Int64"),
            "name": pd.Series([f"n{i}" for i in range(rows)], dtype="str"),
            "ok": pd.array([i % 2 == 0 for i in range(rows)], dtype="boolean"),
            "amount": [i * 1.5 for i in range(rows)],
            "at": pd.to_datetime(["2024-01-01"] * rows),
        }
    )


def test_a_stored_frame_reads_back_with_the_same_dtypes(tmp_path):
    store = ResultStore(tmp_path)
    path = store.put(key("a"), frame())
    assert path == tmp_path / key("a")[:2] / f"{key('a')}.parquet"
    assert store.path_of(key("a")) == path
    back = pd.read_parquet(path)
    pd.testing.assert_frame_equal(back, frame())


def test_an_absent_key_has_no_path(tmp_path):
    assert ResultStore(tmp_path).path_of(key("nothing")) is None


@pytest.mark.parametrize("bad", ["../../etc/passwd", "ab", key("a").upper(), key("a") + "/x"])
def test_a_malformed_key_is_refused_before_any_path_is_made(tmp_path, bad):
    with pytest.raises(ValueError, match="not a result key"):
        ResultStore(tmp_path).path_of(bad)


def test_least_recently_used_entries_go_first_beyond_the_size(tmp_path):
    store = ResultStore(tmp_path, max_bytes=10**9)
    for name in ("a", "b", "c"):
        store.put(key(name), frame(2000))
    one = store.path_of(key("a")).stat().st_size
    past = time.time() - 100
    for age, name in enumerate(("a", "b", "c")):
        os.utime(store.path_of(key(name)), (past + age, past + age))
    store.path_of(key("a"))  # used just now: "b" is the least recently used
    store.max_bytes = 2 * one + one // 2
    assert store.evict() == [key("b")]
    assert store.path_of(key("b")) is None and store.record(key("b")) == {}
    assert store.path_of(key("a")) and store.path_of(key("c"))


def test_the_entry_just_written_stays_even_when_it_alone_is_too_big(tmp_path):
    store = ResultStore(tmp_path, max_bytes=10)
    store.put(key("a"), frame())
    store.put(key("b"), frame())
    assert store.path_of(key("a")) is None
    assert store.path_of(key("b")) is not None


def test_the_size_comes_from_the_environment():
    assert max_bytes_from_environment({"PIPEWRIGHT_CACHE_SIZE": "2GB"}) == 2 * 10**9
    assert max_bytes_from_environment({}) == DEFAULT_MAX_BYTES
    with pytest.raises(OperatorError, match="PIPEWRIGHT_CACHE_SIZE is 'lots'"):
        max_bytes_from_environment({"PIPEWRIGHT_CACHE_SIZE": "lots"})


def test_a_writer_that_fails_leaves_no_entry_and_no_temporary_file(tmp_path):
    store = ResultStore(tmp_path)

    def half(path: Path):
        path.write_bytes(b"PAR1 half a file")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        store.put_with(key("a"), half)
    assert store.path_of(key("a")) is None
    assert list((tmp_path / "tmp").iterdir()) == []


KILLED_WRITER = """
import sys, time
from pathlib import Path
from runtime.cache.store import ResultStore

def slow(path):
    path.write_bytes(b"PAR1")
    print("writing", flush=True)
    time.sleep(60)

ResultStore(Path(sys.argv[1])).put_with(sys.argv[2], slow)
"""


def test_a_killed_writer_leaves_no_entry_and_its_leftover_is_swept(tmp_path):
    writer = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER, str(tmp_path), key("a")], stdout=subprocess.PIPE
    )
    assert writer.stdout.readline() == b"writing\n"
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    store = ResultStore(tmp_path)
    assert store.path_of(key("a")) is None
    (leftover,) = (tmp_path / "tmp").iterdir()
    os.utime(leftover, (time.time() - 7200, time.time() - 7200))
    store.evict()
    assert not leftover.exists()


CONCURRENT_PUTS = """
import sys
import pandas as pd
from pathlib import Path
from runtime.cache.store import ResultStore

store = ResultStore(Path(sys.argv[1]))
frame = pd.DataFrame({"x": range(200_000)})
for round in range(20):
    store.put(sys.argv[2], frame)
    assert len(pd.read_parquet(store.path_of(sys.argv[2]))) == 200_000
print("ok")
"""


def test_two_processes_storing_the_same_key_at_once_both_succeed(tmp_path):
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", CONCURRENT_PUTS, str(tmp_path), key("same")],
            stdout=subprocess.PIPE,
        )
        for _ in range(2)
    ]
    for writer in writers:
        out, _ = writer.communicate(timeout=120)
        assert (writer.returncode, out) == (0, b"ok\n")
    assert len(pd.read_parquet(ResultStore(tmp_path).path_of(key("same")))) == 200_000
    assert list((tmp_path / "tmp").iterdir()) == []


def test_notes_add_to_the_record_of_a_key(tmp_path):
    store = ResultStore(tmp_path)
    store.put(key("a"), frame())
    store.note(key("a"), target={"path": "out.csv", "size": 3})
    record = store.record(key("a"))
    assert record["target"] == {"path": "out.csv", "size": 3}
    assert store.stored_at(key("a")) == pytest.approx(time.time(), abs=60)


def test_puts_look_over_the_store_only_when_it_may_be_full(tmp_path, monkeypatch):
    """A run storing thousands of results must not scan every entry after each one."""
    store = ResultStore(tmp_path, max_bytes=10**9)
    scans = []
    entries = store._entries
    monkeypatch.setattr(store, "_entries", lambda: scans.append(1) or entries())
    for index in range(50):
        store.put(key(str(index)), frame())
    assert len(scans) == 1  # the first put's look: then it counts what it adds
    store.max_bytes = 1
    store.put(key("last"), frame())
    assert len(scans) == 2 and store.path_of(key("0")) is None


def test_a_segment_file_is_adopted_only_when_written_to_its_end(tmp_path):
    """The check reads the Parquet magic and footer length by hand (no pyarrow.parquet import
    in a DuckDB run): a whole file passes, one cut short or empty does not."""
    import duckdb

    from runtime.execution.tasks import _complete

    whole = tmp_path / "whole.parquet"
    duckdb.sql(f"COPY (SELECT range AS n FROM range(1000)) TO '{whole}' (FORMAT parquet)")
    data = whole.read_bytes()
    cut, empty = tmp_path / "cut.parquet", tmp_path / "empty.parquet"
    cut.write_bytes(data[: len(data) // 2])
    empty.write_bytes(b"")
    assert [_complete(path) for path in (whole, cut, empty)] == [True, False, False]
    assert not _complete(tmp_path / "missing.parquet")
