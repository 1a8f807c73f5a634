"""Timing commands as fresh processes, the way a user runs them (shared by the benchmarks)."""

from __future__ import annotations

import compileall
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs in a small process of its own: a child's peak memory (ru_maxrss) starts at its
# parent's size at fork time, so measuring from the benchmark itself, which may hold
# gigabytes of generated data, would report that instead of the child's own peak.
_MEASURE = """
import json, resource, subprocess, sys, time
started = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"code": done.returncode, "seconds": seconds, "peak_mb": peak}))
sys.stderr.write(done.stderr.decode(errors="replace"))
"""


def compile_bytecode() -> None:
    """Write the project's bytecode, as an installed package has it.

    Where PYTHONDONTWRITEBYTECODE is set (as on this kind of machine) and nothing compiled
    them, every run would compile the engine's sources again, a cost no user pays twice.
    """
    for package in ("runtime", "editor", "pipewright"):
        compileall.compile_dir(ROOT / package, quiet=1)


def run_measured(command: list[str], env: dict[str, str] | None = None) -> dict:
    """One run of `command`: its exit `code`, wall `seconds`, `peak_mb` (max RSS) and `stderr`.

    `env` adds to (or overrides) this process's environment for the command.
    """
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )
    return {**json.loads(done.stdout), "stderr": done.stderr}


def measure(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall seconds and peak resident memory (MB) of one run of `command`, which must succeed."""
    result = run_measured(command, env)
    if result["code"] != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{result['stderr']}")
    return result["seconds"], result["peak_mb"]


def best(repeat: int, command: list[str]) -> tuple[float, float]:
    """The best wall time of `repeat` runs, and the highest peak memory among them."""
    runs = [measure(command) for _ in range(repeat)]
    return min(seconds for seconds, _ in runs), max(memory for _, memory in runs)
