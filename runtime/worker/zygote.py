"""The pre-started server that forks run processes, and a supervisor's handle on it.

Starting Python and importing pandas, pyarrow and the operators takes more than a second; a
short run takes milliseconds. So one server process (a zygote, as Android calls its own) is
started once, imports the engine, and forks a process per run (or per job: a preview, schema
inference), which starts in a millisecond or two with everything loaded and serves what its
first message asks. `multiprocessing`'s forkserver works the same way, but its
server inherits the whole environment of the process that starts it (a secret in the web
server's environment shows in every run's /proc/<pid>/environ) and its children import that
process's `__main__` again (daphne, or pytest); this server is started with a scrubbed
environment (`scrubbed_environment`) and its children load nothing but the runtime.

A supervisor asks for a process over a Unix socket, passing the run's end of the socket it
will talk to the run over, and a pipe: the server writes the new process's pid to the pipe,
then its wait status when it ends (a process can only wait for its own children). The server
ends with the supervisor's process (the end of its socket); each run process is `nice`d and
dies with the server (PR_SET_PDEATHSIG), besides ending itself when its run socket closes.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import json
import os
import re
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import NoReturn

from runtime.execution.statuses import RunStatus
from runtime.worker.wire import Link

PRELOAD = (
    "pandas", "numpy", "pyarrow", "pyarrow.csv", "pyarrow.compute", "pyarrow.parquet", "duckdb",
    "runtime.plan.partitioning", "runtime.worker.child", "runtime.worker.jobs",
)  # fmt: skip
"""What runs and jobs need, imported once by the server, before it forks: with what the engine
leaves for a fresh process to import on first use (runtime/lazy.py, the Dask planning)."""
WARM_UP = {
    "format": "pipewright.pipeline",
    "version": 1,
    "name": "warm-up",
    "config": {"backend": "pandas"},
    "nodes": [
        {"id": "read", "operator": "csv_input", "params": {"path": "in.csv"}},
        {"id": "keep", "operator": "filter", "params": {"condition": "id > 0"}},
        {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
    ],
    "edges": [{"source": "read", "target": "keep"}, {"source": "keep", "target": "write"}],
}
"""A run the server executes once before it forks: what a run loads on first use (the CSV
reader and writer, the expression compiler, the plan's passes) is then loaded once, here,
rather than in every run's process (tens of milliseconds each)."""
NICENESS = 10
"""Run processes yield the CPU to the web server, which every user's pages depend on."""
START_TIMEOUT_S = 60.0
"""How long a first request may wait for a server that is still importing the engine."""
STOP_TIMEOUT_S = 5.0
"""How long a server told to stop may take before it is killed."""
TERM_WAIT_S = 0.2
"""After SIGTERM, how long a run's process has before SIGKILL."""
_SECRET = re.compile(r"SECRET|PASSW|TOKEN|KEY|CREDENTIAL|_URL$|^DJANGO_", re.IGNORECASE)
"""Environment variables a run's process never gets: the web server's secrets and settings."""
_PID = struct.Struct("q")
_BOOT = (
    "import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
    "from runtime.worker.zygote import main; main(int(sys.argv[2]))"
)


def scrubbed_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """`environ` (this process's) without anything that could be a secret or a Django setting:
    names with SECRET, PASSW, TOKEN, KEY or CREDENTIAL in them, or ending in _URL (a database
    or Redis URL holds a password), and DJANGO_*."""
    environ = os.environ if environ is None else environ
    return {name: value for name, value in environ.items() if not _SECRET.search(name)}


class RunProcess:
    """A forked process (a run's or a job's), seen from its supervisor: its pid, its socket,
    its size, its end."""

    def __init__(self, pid: int, link: Link, status_fd: int):
        self.pid = pid
        self.link = link
        self._status_fd = status_fd
        self.ended = False
        self.returncode: int | None = None
        """Once ended: the exit code, or minus the signal that killed it; None when unknown
        (the server that forked it ended first)."""
        self._size_at_start = self.rss_bytes()
        """The engine it shares with the server, which is not its own use."""

    def count_memory_from_now(self) -> None:
        """Measure its `growth` from its size now (a spare, warmed up: that was not its work)."""
        self._size_at_start = self.rss_bytes()

    def wait(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the process to end; whether it has."""
        if not self.ended and _readable(self._status_fd, timeout):
            status = os.read(self._status_fd, _PID.size)
            self.ended = True
            if len(status) == _PID.size:
                self.returncode = os.waitstatus_to_exitcode(_PID.unpack(status)[0])
        return self.ended

    def send_signal(self, signum: int) -> None:
        """Signal the process, unless it has ended (its pid may belong to another by now)."""
        if not self.wait(0):
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signum)

    def stop(self, *, at_once: bool) -> None:
        """End the process: SIGKILL `at_once`, else SIGTERM, then SIGKILL if it lingers past
        `TERM_WAIT_S`."""
        self.send_signal(signal.SIGKILL if at_once else signal.SIGTERM)
        if not at_once and not self.wait(TERM_WAIT_S):
            self.send_signal(signal.SIGKILL)

    def death(self, where: str) -> tuple[RunStatus, str]:
        """What became of a run whose process ended before its run did: it failed, with what
        ended the process and `where` (" at node X") it was."""
        return RunStatus.FAILED, f"the run's process {self.how_it_ended()}{where}"

    def rss_bytes(self) -> int | None:
        """Its resident memory now; None once it is gone."""
        try:
            resident = Path(f"/proc/{self.pid}/statm").read_text().split()[1]
        except (OSError, IndexError):
            return None
        return int(resident) * os.sysconf("SC_PAGE_SIZE")

    def growth(self) -> int:
        """By how much its resident memory grew since it was forked (0 once it is gone)."""
        size = self.rss_bytes()
        return 0 if size is None or self._size_at_start is None else size - self._size_at_start

    def how_it_ended(self) -> str:
        """Once ended, in words: "was killed (SIGKILL)", "exited with code 3", …"""
        code = self.returncode
        if code is None:
            return "ended with the server that forked it"
        if code < 0:
            return f"was killed ({signal.Signals(-code).name})"
        return f"exited with code {code}"

    def close(self) -> None:
        self.link.close()
        os.close(self._status_fd)


class ForkServer:
    """The supervisor's side: starts the server when first needed (again if it died)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._server: subprocess.Popen | None = None
        self._control: socket.socket | None = None

    def start(self) -> None:
        """Start the server now, if it is not running (at web server start: the first run
        then does not wait for the engine's imports)."""
        with self._lock:
            self._running()

    def fork(self) -> RunProcess:
        """A new run process, waiting for its `start` message."""
        run_end, child_end = socket.socketpair()
        status_r, status_w = os.pipe()
        try:
            self._send((child_end.fileno(), status_w))
        except BaseException:
            os.close(status_r)
            run_end.close()
            raise
        finally:
            child_end.close()
            os.close(status_w)
        try:
            pid = _read_pid(status_r)
        except BaseException:
            os.close(status_r)
            run_end.close()
            raise
        return RunProcess(pid, Link(run_end.detach()), status_r)

    def _send(self, fds: tuple[int, int]) -> None:
        with self._lock:
            try:
                socket.send_fds(self._running(), [b"fork"], list(fds))
            except OSError:  # it died since it was last asked: once more with a new one
                self._stop_unlocked()
                socket.send_fds(self._running(), [b"fork"], list(fds))

    def _running(self) -> socket.socket:
        if self._server is not None and self._server.poll() is not None:
            self._stop_unlocked()
        if self._control is None:
            mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            with theirs:
                self._server = subprocess.Popen(
                    [sys.executable, "-c", _BOOT, json.dumps(sys.path), str(theirs.fileno())],
                    pass_fds=[theirs.fileno()],
                    env=scrubbed_environment(),
                    stdin=subprocess.DEVNULL,
                )
            self._control = mine
        return self._control

    def stop(self) -> None:
        """Stop the server; the run processes it forked die with it."""
        with self._lock:
            self._stop_unlocked()

    def _stop_unlocked(self) -> None:
        if self._control is not None:
            self._control.close()  # the server's end of its socket: it exits
        if self._server is not None:
            try:
                self._server.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:  # stuck (importing the engine, say)
                self._server.kill()
                self._server.wait()
        self._control = self._server = None


def _readable(fd: int, timeout: float) -> bool:
    """Whether `fd` has data (or its end) within `timeout` seconds. `poll`, not `select`: a
    web server's file descriptors go past select's 1024."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(timeout * 1000))


def _read_pid(status_fd: int) -> int:
    if not _readable(status_fd, START_TIMEOUT_S):
        raise OSError(f"the run process server did not fork within {START_TIMEOUT_S:g} s")
    data = os.read(status_fd, _PID.size)
    if len(data) != _PID.size:
        raise OSError("the run process server ended before it forked the run's process")
    return _PID.unpack(data)[0]


# -- the server ------------------------------------------------------------------------------


def main(control_fd: int) -> NoReturn:
    """The server's process: load the engine, then fork a run process per request."""
    os.setsid()  # terminal signals (Ctrl+C in `manage.py runpipeline`) reach the supervisor only
    for module in PRELOAD:
        importlib.import_module(module)
    from runtime.operators.registry import default_registry

    default_registry().catalog()
    try:
        run_warm_up()
    except Exception:  # runs then load what it would have loaded: slower, never broken
        traceback.print_exc()
    gc.collect()
    gc.freeze()  # the loaded engine stays shared with the run processes, never collected
    control = socket.socket(fileno=control_fd)
    wake_r, wake_w = os.pipe()
    for fd in (wake_r, wake_w):
        os.set_blocking(fd, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so that SIGCHLD wakes `select`
    children: dict[int, int] = {}
    """Each live run process's status pipe."""
    server = os.getpid()
    while True:
        readable = select.select([control, wake_r], [], [])[0]
        if wake_r in readable:
            while _drained(wake_r):
                pass
            _report_ended(children)
        if control in readable:
            message, fds, _, _ = socket.recv_fds(control, 16, 2)
            if not message:  # the supervisor's process is gone: so are its runs
                os._exit(0)
            run_fd, status_fd = fds
            pid = os.fork()
            if pid == 0:
                for fd in (control.fileno(), wake_r, wake_w, status_fd, *children.values()):
                    os.close(fd)
                _become_child(run_fd, server)
            os.close(run_fd)
            children[pid] = status_fd
            _write(status_fd, pid)


def run_warm_up(backend: str = "pandas") -> None:
    """Execute `WARM_UP` on `backend` in a folder of its own, then wait for its threads to
    end: the server forks with no thread of its own running."""
    from runtime.document.spec import load_document
    from runtime.execution.executor import execute
    from runtime.io.paths import FileArea
    from runtime.plan import build_plan
    from runtime.plan.prepare import prepare

    with tempfile.TemporaryDirectory(prefix="pipewright-warm-up-") as folder:
        Path(folder, "in.csv").write_text("id,name\n1,Ada\n")
        area = FileArea(Path(folder))
        document = load_document({**WARM_UP, "config": {"backend": backend}})
        execute(prepare(build_plan(document), data_root=area), data_root=area)
    for thread in threading.enumerate():
        if thread is not threading.main_thread():
            thread.join()


def _drained(fd: int) -> bool:
    try:
        return bool(os.read(fd, 4096))
    except BlockingIOError:
        return False


def _report_ended(children: dict[int, int]) -> None:
    """Reap every ended run process and tell its supervisor how it ended."""
    while children:
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            return
        status_fd = children.pop(pid, None)
        if status_fd is not None:
            _write(status_fd, status)
            os.close(status_fd)


def _write(fd: int, number: int) -> None:
    with contextlib.suppress(OSError):  # else its supervisor stopped listening: nobody to tell
        os.write(fd, _PID.pack(number))


def _become_child(fd: int, server: int) -> NoReturn:
    """In a forked process: settle into a child of the server, serve what its first message
    asks (a run, a job), then exit without the interpreter's teardown (nothing is left to
    flush: every message was sent)."""
    from runtime.worker import child, jobs, process_flags

    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    process_flags.die_with_parent()
    if os.getppid() != server:  # the server ended before the line above took effect
        os._exit(child.EXIT_ORPHANED)
    os.nice(NICENESS)
    serves = {"start": child.serve, "job": jobs.serve}
    link = Link(fd)
    try:
        first = link.receive()
        if first["kind"] == "standby":  # a spare: warm up, say so, then serve what comes
            jobs.warm_up()
            link.send("ready")
            first = link.receive()
        code = serves[first["kind"]](link, first)
    except (EOFError, OSError):  # the supervisor went away before or while we spoke
        code = child.EXIT_ORPHANED
    os._exit(code)
