"""Settings that would leave the server unable to run anything stop it at start, saying why."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        (
            "PIPEWRIGHT_MAX_RUNS",
            "0",
            "PIPEWRIGHT_MAX_RUNS is '0'; it must be a whole number, at least 1",
        ),
        ("PIPEWRIGHT_MAX_PREVIEWS", "-1", "PIPEWRIGHT_MAX_PREVIEWS is '-1'; it must be a whole"),
        ("PIPEWRIGHT_MAX_RUNS_PER_USER", "many", "PIPEWRIGHT_MAX_RUNS_PER_USER is 'many'"),
        ("PIPEWRIGHT_KEEP_REVISIONS", "0", "PIPEWRIGHT_KEEP_REVISIONS is '0'; it must be a whole"),
        ("PIPEWRIGHT_WORKERS", "threads", "PIPEWRIGHT_WORKERS is 'threads'; it must be 'embedded'"),
        (
            "PIPEWRIGHT_RUN_STALE_AFTER",
            "5",
            "PIPEWRIGHT_RUN_STALE_AFTER is '5'; it must be a number of seconds, at least 15",
        ),
        ("PIPEWRIGHT_RUN_STALE_AFTER", "nan", "PIPEWRIGHT_RUN_STALE_AFTER is 'nan'"),
    ],
)
def test_a_setting_that_lets_nothing_run_stops_the_server_at_start(name, value, message):
    started = subprocess.run(
        [sys.executable, "-c", "import pipewright.settings"],
        env={**os.environ, name: value}, capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    assert started.returncode != 0
    assert message in started.stderr
