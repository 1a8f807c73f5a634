"""Measured runs: CPU seconds of the whole process tree, limits enforced, rounds alternated."""

from __future__ import annotations

import sys

import pytest

from bench import processes

PYTHON = sys.executable
SPIN = "import time; end = time.process_time() + 0.3\nwhile time.process_time() < end: pass"


def test_cpu_seconds_count_the_commands_children_too():
    child = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {SPIN!r}])"
    run = processes.run_measured([PYTHON, "-c", child])
    assert run.ok
    assert run.cpu_seconds >= 0.3


def test_a_run_above_the_memory_limit_is_killed_with_its_children():
    hog = "import time; block = bytearray(300 * 2**20); time.sleep(60)"
    parent = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {hog!r}])"
    run = processes.run_measured([PYTHON, "-c", parent], limit_bytes=150 * 2**20)
    assert run.killed == "memory"
    assert not run.ok
    assert run.failure() == "killed at the memory limit"


def test_a_run_past_its_time_limit_is_killed():
    run = processes.run_measured([PYTHON, "-c", "import time; time.sleep(60)"], timeout=0.5)
    assert run.killed == "time"
    assert run.failure().startswith("killed at the time limit")


def test_a_failed_run_says_its_exit_code_and_last_error_line():
    run = processes.run_measured([PYTHON, "-c", "import sys; sys.exit('no such table')"])
    assert run.failure() == "failed (exit 1): no such table"


def test_rounds_alternate_and_a_failed_entrant_is_not_run_again(tmp_path):
    log = tmp_path / "log"
    entrants = [
        processes.Entrant(name, [PYTHON, "-c", f"open({str(log)!r}, 'a').write('{name}')" + end])
        for name, end in [("a", ""), ("b", "; raise SystemExit(2)"), ("c", "")]
    ]
    runs = processes.race(entrants, repeat=3)
    assert log.read_text() == "abcacac"
    assert [len(runs[name]) for name in "abc"] == [3, 1, 3]
    assert processes.failed(runs["b"]).code == 2


@pytest.mark.parametrize(
    ("text", "size"), [("1GiB", 2**30), ("500MB", 500 * 10**6), ("1.5 gib", 3 * 2**29)]
)
def test_memory_sizes_read_binary_and_decimal_units(text, size):
    assert processes.size_bytes(text) == size


def test_a_memory_size_without_a_unit_is_refused():
    with pytest.raises(ValueError, match="not a size"):
        processes.size_bytes("1024")
