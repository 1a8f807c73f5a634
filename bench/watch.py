"""Run one command, measure it, and kill it past a memory or time limit (bench/processes.py).

    python bench/watch.py LIMIT_BYTES TIMEOUT_SECONDS COMMAND...     (0: no limit)

Prints one JSON line: exit `code`, wall `seconds`, `cpu_seconds` (user + system of the command
and every descendant it waited for), `peak_mb` (max RSS of the largest of them) and `killed`
("memory", "time" or null); the command's standard error goes to this one's.

It runs as a small process of its own: a child's max RSS starts at its parent's size at fork
time, so measuring from the benchmark, which may hold gigabytes of data, would report that.
The memory limit is enforced by polling the resident memory of the whole process tree (a run
may start processes of its own) and killing the tree above it: setrlimit(RLIMIT_AS) counts
address space that DuckDB and Arrow reserve without using, and cgroups need privileges.
"""

import contextlib
import json
import resource
import subprocess
import sys
import tempfile
import time

POLL_SECONDS = 0.05


def tree_rss(process) -> int:
    """Resident bytes of `process` and its descendants (those gone meanwhile count 0)."""
    import psutil

    total = 0
    for member in [process, *process.children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess):
            total += member.memory_info().rss
    return total


def kill_tree(process) -> None:
    import psutil

    for member in [*process.children(recursive=True), process]:
        with contextlib.suppress(psutil.NoSuchProcess):
            member.kill()


def watch(child: subprocess.Popen, limit: int, timeout: float, started: float) -> str | None:
    """Wait for `child`; kill its tree and say why when it passes a limit."""
    if not limit and not timeout:
        child.wait()
        return None
    import psutil

    process = psutil.Process(child.pid)
    while True:
        try:
            child.wait(POLL_SECONDS)
            return None
        except subprocess.TimeoutExpired:
            pass
        try:
            reason = None
            if timeout and time.perf_counter() - started > timeout:
                reason = "time"
            elif limit and tree_rss(process) > limit:
                reason = "memory"
            if reason:
                kill_tree(process)
                child.wait()
                return reason
        except psutil.NoSuchProcess:
            pass  # it ended between the wait and the look: the next wait reaps it


def main() -> None:
    limit, timeout, command = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3:]
    with tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)
        killed = watch(child, limit, timeout, started)
        seconds = time.perf_counter() - started
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        errors.seek(0)
        sys.stderr.write(errors.read().decode(errors="replace"))
    measured = {
        "code": child.returncode,
        "seconds": seconds,
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024,
        "killed": killed,
    }
    print(json.dumps(measured))


if __name__ == "__main__":
    main()
