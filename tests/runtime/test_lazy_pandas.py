"""pandas loads when a frame is first touched, never when the engine is only imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def _run(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_importing_the_engine_and_its_operators_loads_no_pandas():
    code = (
        "import sys, runtime.cli, runtime.executor, runtime.plan, runtime.registry;"
        "import runtime.backends.duckdb;"
        "runtime.registry.default_registry();"
        "print('pandas.core.frame' in sys.modules)"
    )
    assert _run(code) == "False"


def test_the_first_use_loads_pandas_once_even_from_two_threads_at_once():
    code = """
import sys, threading
from runtime.lazy import pd
start, seen = threading.Barrier(4), []
def touch():
    start.wait()
    seen.append(pd.DataFrame)
threads = [threading.Thread(target=touch) for _ in range(4)]
for thread in threads: thread.start()
for thread in threads: thread.join()
import pandas
print(len(seen), all(kind is pandas.DataFrame for kind in seen), pd.DataFrame is pandas.DataFrame)
"""
    assert _run(code) == "4 True True"
