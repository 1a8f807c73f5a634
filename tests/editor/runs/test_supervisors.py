"""Where the launcher has runs execute: the supervisor its mapping names for the settings, and
`distributed` loaded only once runs go to a Dask cluster (it costs a web process half a second
and about 47 MiB)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from editor.runs import launcher
from editor.runs.dask import DaskSupervisor
from editor.runs.local import LocalSupervisor

ROOT = Path(__file__).resolve().parents[3]


def test_runs_execute_in_local_processes_unless_a_dask_scheduler_is_named(settings):
    settings.PIPEWRIGHT_DASK_SCHEDULER = ""
    assert isinstance(launcher._supervisor(), LocalSupervisor)

    settings.PIPEWRIGHT_DASK_SCHEDULER = "tcp://scheduler:8786"
    assert isinstance(launcher._supervisor(), DaskSupervisor)


def test_the_web_process_loads_no_distributed_while_runs_execute_locally():
    code = (
        "import sys, django; django.setup();"
        "import pipewright.urls, editor.runs.launcher, editor.runs.dask;"
        "print(sorted(name for name in ('distributed', 'dask') if name in sys.modules))"
    )
    environ = {**os.environ, "DJANGO_SETTINGS_MODULE": "pipewright.settings"}
    environ.pop("PIPEWRIGHT_DASK_SCHEDULER", None)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=environ
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
