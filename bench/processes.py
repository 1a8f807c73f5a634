"""Timing commands as fresh processes, the way a user runs them (shared by the benchmarks).

Contestants run in rounds that alternate them (A B C, A B C, ...), so that a shared machine's
slow minute hurts them all alike; each run is measured by bench/watch.py, in wall and in CPU
seconds (on a machine shared with other work, CPU seconds move far less than wall seconds).
"""

from __future__ import annotations

import compileall
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WATCH = ROOT / "bench" / "watch.py"
UNITS = {"kib": 2**10, "mib": 2**20, "gib": 2**30, "kb": 10**3, "mb": 10**6, "gb": 10**9}


def size_bytes(text: str) -> int:
    """`1GiB` → 1073741824 (KiB, MiB, GiB, KB, MB, GB): a memory limit as written."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([kmg]i?b)", text.strip(), re.IGNORECASE)
    if match is None:
        raise ValueError(f"'{text}' is not a size such as 1GiB or 500MB")
    return int(float(match[1]) * UNITS[match[2].lower()])


def compile_bytecode() -> None:
    """Write the project's bytecode, as an installed package has it.

    Where PYTHONDONTWRITEBYTECODE is set (as on this kind of machine) and nothing compiled
    them, every run would compile the engine's sources again, a cost no user pays twice.
    """
    for package in ("runtime", "editor", "pipewright"):
        compileall.compile_dir(ROOT / package, quiet=1)


@dataclass(frozen=True)
class Run:
    """One measured run: exit `code`, wall `seconds`, `cpu_seconds` (the command's and its
    descendants'), `peak_mb` (max RSS), `killed` ("memory", "time" or None) and `stderr`."""

    code: int
    seconds: float
    cpu_seconds: float
    peak_mb: float
    killed: str | None
    stderr: str

    @property
    def ok(self) -> bool:
        return self.code == 0 and self.killed is None

    def failure(self) -> str:
        """One line saying how the run failed."""
        if self.killed == "memory":
            return "killed at the memory limit"
        if self.killed == "time":
            return f"killed at the time limit ({self.seconds:.0f} s)"
        last = self.stderr.strip().splitlines() or ["(no message)"]
        return f"failed (exit {self.code}): {last[-1][:100]}"


@dataclass(frozen=True)
class Entrant:
    """A contestant: its table `label`, its `command`, and environment to add for it.
    `served_by`: the pid of the command server that runs its command (its CPU is then added
    to the caller's; its peak memory is not measured, nor limited)."""

    label: str
    command: list[str]
    env: dict[str, str] | None = None
    served_by: int | None = None


@contextlib.contextmanager
def command_server() -> Iterator[tuple[dict[str, str], int]]:
    """A command server (`python -m runtime server start`) of its own while active: the
    environment that makes a command use it, and its pid."""
    with tempfile.TemporaryDirectory() as folder:
        env = {"XDG_RUNTIME_DIR": folder}
        said = server_command("start", env)
        try:
            yield env, int(said.split("(pid ")[1].split(",")[0])
        finally:
            server_command("stop", env)


def server_command(action: str, env: dict[str, str]) -> str:
    """`python -m runtime server ACTION` with the command server `env` places; what it says."""
    done = subprocess.run(
        [sys.executable, "-m", "runtime", "server", action], env={**os.environ, **env},
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout


def cpu_with_children(pid: int) -> float:
    """CPU seconds process `pid` used, with those of the children it has waited for."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
    return sum(int(tick) for tick in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def run_measured(
    command: list[str],
    env: dict[str, str] | None = None,
    limit_bytes: int = 0,
    timeout: float = 0,
) -> Run:
    """One run of `command`, killed (with its processes) above `limit_bytes` of resident
    memory or after `timeout` seconds (0: no limit). `env` adds to this process's environment."""
    done = subprocess.run(
        [sys.executable, str(WATCH), str(limit_bytes), str(timeout), *command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )
    if done.returncode != 0:
        raise RuntimeError(f"bench/watch.py failed: {done.stderr}")
    return Run(**json.loads(done.stdout), stderr=done.stderr)


def measure(command: list[str], env: dict[str, str] | None = None) -> Run:
    """One run of `command`, which must succeed."""
    run = run_measured(command, env)
    if not run.ok:
        raise SystemExit(f"{run.failure()}: {' '.join(command)}\n{run.stderr}")
    return run


def best(repeat: int, command: list[str]) -> tuple[float, float]:
    """The best wall time of `repeat` runs, and the highest peak memory among them."""
    runs = [measure(command) for _ in range(repeat)]
    return min(run.seconds for run in runs), max(run.peak_mb for run in runs)


def race(
    entrants: list[Entrant],
    repeat: int,
    pause: float = 0.0,
    limit_bytes: int = 0,
    timeout: float = 0,
    after_round: Callable[[], None] | None = None,
) -> dict[str, list[Run]]:
    """`repeat` rounds, each running every entrant once in order (`pause` idle seconds before
    each run): every entrant's runs. An entrant whose run fails is not run again (its list
    ends with the failed run); `after_round` is called after each round, to check outputs."""
    runs: dict[str, list[Run]] = {entrant.label: [] for entrant in entrants}
    for _ in range(repeat):
        for entrant in entrants:
            done = runs[entrant.label]
            if done and not done[-1].ok:
                continue
            time.sleep(pause)
            done.append(run_entrant(entrant, limit_bytes, timeout))
        if after_round:
            after_round()
    return runs


def run_entrant(entrant: Entrant, limit_bytes: int = 0, timeout: float = 0) -> Run:
    """One run of `entrant` (see `run_measured`), with the CPU its command server spent."""
    server = entrant.served_by
    before = 0.0 if server is None else cpu_with_children(server)
    done = run_measured(entrant.command, entrant.env, limit_bytes, timeout)
    if server is None:
        return done
    return replace(done, cpu_seconds=done.cpu_seconds + cpu_with_children(server) - before)


def failed(runs: list[Run]) -> Run | None:
    """The failed run among `runs`, if any (race stops an entrant at its first)."""
    return next((run for run in runs if not run.ok), None)


def medians(runs: list[Run]) -> tuple[float, float]:
    """Median wall and CPU seconds of `runs`."""
    return (
        statistics.median(run.seconds for run in runs),
        statistics.median(run.cpu_seconds for run in runs),
    )
