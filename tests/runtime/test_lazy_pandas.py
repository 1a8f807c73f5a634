"""pandas loads when a frame is first touched, never when the engine is only imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench.seed_etl import PIPELINE

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


def test_a_run_whose_segments_all_run_on_duckdb_never_imports_pandas(tmp_path):
    (tmp_path / "users.csv").write_text(
        "id,name,age,amount,country\n1,ada,36,10.5,FR\n2,alan,17,3.0,DE\n3,grace,45,,FR\n"
    )
    (tmp_path / "countries.csv").write_text("country,country_name\nFR,France\nDE,Germany\n")
    (tmp_path / "seed.json").write_text(json.dumps(PIPELINE))
    code = (
        "import sys; from runtime.cli import main;"
        f"code = main(['run', {str(tmp_path / 'seed.json')!r}, '--data-root', {str(tmp_path)!r},"
        " '--backend', 'duckdb']);"
        "print(code, 'pandas.core.frame' in sys.modules)"
    )
    assert _run(code).splitlines()[-1] == "0 False"
    written = (tmp_path / PIPELINE["nodes"][-1]["params"]["path"]).read_text().splitlines()
    assert sorted(line.split(",")[:2] for line in written[1:]) == [["FR", "2"]]  # adults only
