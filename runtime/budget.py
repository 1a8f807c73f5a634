"""How much memory and how many threads one run may use, so that parallel runs fit together.

`PIPEWRIGHT_RUN_MEMORY` sets a run's memory (bytes, or with a unit: "2GiB", "512MB"); by
default a run gets about 70 % of the machine's memory (or of its cgroup limit) divided by
`PIPEWRIGHT_MAX_RUNS` (default 2). Threads are the usable cores divided likewise, at least one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from runtime.errors import OperatorError

MEMORY_SHARE = 0.7
"""Of the machine's memory, what the runs may use together; the rest is for the server."""
DEFAULT_MAX_RUNS = 2
MEMORY_PER_THREAD = 128 * 2**20
"""What one DuckDB thread needs at the least (its performance guide says 125 MB)."""
_UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}
_CGROUP_MEMORY = Path("/sys/fs/cgroup/memory.max")


@dataclass(frozen=True)
class Budget:
    """A run's share of the machine."""

    memory_bytes: int
    threads: int

    @classmethod
    def from_environment(
        cls, environ: Mapping[str, str] | None = None, default_runs: int = DEFAULT_MAX_RUNS
    ) -> Budget:
        """The budget the settings give; `default_runs` when PIPEWRIGHT_MAX_RUNS is not set
        (the command line runs one pipeline at a time: 1)."""
        environ = os.environ if environ is None else environ
        runs = _max_runs(environ.get("PIPEWRIGHT_MAX_RUNS"), default_runs)
        written = environ.get("PIPEWRIGHT_RUN_MEMORY")
        memory = (
            parse_bytes(written, "PIPEWRIGHT_RUN_MEMORY")
            if written
            else int(machine_memory() * MEMORY_SHARE / runs)
        )
        return cls(memory_bytes=memory, threads=max(1, usable_cores() // runs))

    def within(self, threads: int | None = None, memory_bytes: int | None = None) -> Budget:
        """This budget, with at most `threads` and `memory_bytes` where they are given (a
        segment's limits tuned from past runs)."""
        return Budget(
            memory_bytes=min(self.memory_bytes, memory_bytes or self.memory_bytes),
            threads=min(self.threads, threads or self.threads),
        )


def parse_bytes(text: str, setting: str) -> int:
    """A size such as `1073741824`, `2GiB` or `1.5 GB` in bytes."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", text)
    unit = match[2].lower() if match else None
    if match is None or unit not in _UNITS or float(match[1]) <= 0:
        raise OperatorError(
            f"{setting} is '{text}': write a size in bytes, or with a unit such as 2GiB or 512MB"
        )
    return int(float(match[1]) * _UNITS[unit])


def _max_runs(text: str | None, default: int) -> int:
    if not text:
        return default
    if not text.strip().isdigit() or int(text) < 1:
        raise OperatorError(f"PIPEWRIGHT_MAX_RUNS is '{text}': write a whole number, 1 or more")
    return int(text)


def machine_memory() -> int:
    """Physical memory, or the cgroup's limit when that is lower (in a container)."""
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    try:
        limit = _CGROUP_MEMORY.read_text().strip()
    except OSError:
        return physical
    return min(physical, int(limit)) if limit.isdigit() else physical


def usable_cores() -> int:
    return len(os.sched_getaffinity(0))
