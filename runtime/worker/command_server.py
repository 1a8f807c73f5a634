"""The command server: one process per user with the engine loaded, forking a process per
`python -m runtime` command (runtime/worker/command_client.py is the other side).

It is started by `python -m runtime server start`, never by itself: a process that outlives
the command that started it should be asked for. It listens on a socket in a folder only its
user can enter (and checks each caller's user id besides), stops after `idle_minutes` without
a command, and stops rather than run a command once the engine's sources or the installed
packages changed since it started: the command then runs on its own, with the new code. A
caller whose module path differs (another PYTHONPATH) also runs its command on its own.

Each command's process is forked with everything loaded, takes the caller's arguments,
folder, environment, umask and standard streams, runs the command line as a fresh process
would, and dies with the server. The server tells the caller its pid (the caller passes on
Ctrl+C) and then its exit code; a caller that goes away takes its command with it.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import importlib
import io
import json
import os
import select
import signal
import socket
import subprocess
import sys
import sysconfig
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from runtime.worker import process_flags
from runtime.worker.command_client import (
    DEFAULT_IDLE_MINUTES,
    LENGTH,
    RUNTIME_DIR,
    STREAMS,
    connect,
    peer_uid,
    send_request,
    server_folder,
    socket_path,
)
from runtime.worker.zygote import PRELOAD, run_warm_up

COMMAND_PRELOAD = (
    *PRELOAD, "runtime.cli", "runtime.execution.progress", "runtime.backends.duckdb.segment",
    "runtime.backends.duckdb.scans", "runtime.checks.lineage", "runtime.compile",
    "runtime.plan.inline", "runtime.plan.inline_files", "runtime.io.position_files",
)  # fmt: skip
"""What commands need, imported before the server forks (with what zygote.PRELOAD holds)."""
START_TIMEOUT_S = 60.0
"""How long `server start` waits for the new server to import the engine and listen."""
MAX_REQUEST_BYTES = 4 * 1024 * 1024
REQUEST_TIMEOUT_S = 5.0
_BOOT = (
    "import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
    "from runtime.worker.command_server import serve; serve(float(sys.argv[2]))"
)


class ServerError(Exception):
    """The server cannot be started here (its folder is not private, it did not come up)."""


# -- the commands' side: start, stop, status ------------------------------------------------


def status() -> dict | None:
    """What the running server says of itself (pid, when it started, commands run, …), or
    None when none runs."""
    return _ask({"status": True})


def stop() -> dict | None:
    """Stop the running server (commands under way finish first); what it said, or None."""
    return _ask({"stop": True})


def start(idle_minutes: float = DEFAULT_IDLE_MINUTES) -> dict:
    """Start a server in the background unless one runs; its status once it listens."""
    running = status()
    if running is not None:
        return {**running, "already": True}
    folder = _private_folder()
    log = folder / (Path(socket_path()).stem + ".log")
    with open(log, "ab") as output:
        process = subprocess.Popen(
            [sys.executable, "-c", _BOOT, json.dumps(sys.path), str(idle_minutes)],
            stdin=subprocess.DEVNULL, stdout=output, stderr=output, cwd="/",
            start_new_session=True,
        )  # fmt: skip
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        running = status()
        if running is not None:
            return running
        if process.poll() not in (None, 0):  # 0: another start won the race; it will answer
            raise ServerError(f"the command server exited at start; see {log}")
        time.sleep(0.05)
    process.kill()
    raise ServerError(f"the command server did not listen within {START_TIMEOUT_S:g} s; see {log}")


def _ask(request: dict) -> dict | None:
    conn = connect()
    if conn is None:
        return None
    with conn:
        try:
            send_request(conn, request)
            answer = conn.makefile("r", encoding="utf-8").readline()
        except OSError:
            return None
    return json.loads(answer) if answer.startswith("{") else None  # else "stale": it stopped


def _private_folder() -> Path:
    """The socket's folder, made if missing; refused if another user owns it or may enter
    it, or owns or may write in the folder holding it (and so could swap it)."""
    folder = Path(server_folder())
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    checks = ((folder.parent, 0o022, "write in it"), (folder, 0o077, "enter it"))
    for path, others_may_not, what in checks:
        info = path.stat()
        if info.st_uid != os.getuid() or info.st_mode & others_may_not:
            raise ServerError(
                f"{path} must belong to you, and no other user may {what}, before a command "
                "server can listen there"
            )
    return folder


# -- the server ------------------------------------------------------------------------------


def _only_server() -> int:
    """An exclusive lock beside the socket, or the end of this process: two `server start`
    at once (each finding none running) start one server, not two."""
    folder = _private_folder()
    lock = os.open(folder / (Path(socket_path()).stem + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print(f"another command server is starting or running (pid {os.getpid()})", flush=True)
        os._exit(0)
    return lock


def _fingerprint() -> tuple:
    """What changes when the engine's sources or the installed packages do: the sources'
    count and latest change, and the package folders' own times (an install adds or renames
    entries)."""
    sources = list(_source_times(RUNTIME_DIR))
    folders = {sysconfig.get_paths()[name] for name in ("purelib", "platlib")}
    return len(sources), max(sources), *sorted(_mtime(folder) for folder in folders)


def _source_times(folder: str) -> Iterator[int]:
    """The modification times of the .py files under `folder` (os.scandir: each command
    pays for this walk: under a third of what pathlib's rglob takes)."""
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                yield from _source_times(entry.path)
            elif entry.name.endswith(".py"):
                yield entry.stat().st_mtime_ns


def _mtime(folder: str) -> int:
    with contextlib.suppress(OSError):
        return os.stat(folder).st_mtime_ns
    return 0


@dataclass
class _Server:
    """A running server's state: what it listens on, what it loaded, what runs."""

    listener: socket.socket
    idle_s: float
    fingerprint: tuple
    lock: int
    """`_only_server`'s lock, held while it listens."""
    socket_inode: int
    """The socket file it made: it removes that file only (a new server may have made
    another at the same path by then)."""
    started: float = field(default_factory=time.time)
    commands: int = 0
    stop_asked: bool = False
    """Set by SIGTERM (or a `stop` request): stop listening, end once the commands have."""
    listening: bool = True
    running: dict[int, socket.socket | None] = field(default_factory=dict)
    """Each command's process → its caller's connection (None once the caller went away)."""
    last_active: float = field(default_factory=time.monotonic)

    def describe(self) -> dict:
        return {
            "pid": os.getpid(), "socket": socket_path(), "started": self.started,
            "commands": self.commands, "running": len(self.running),
            "idle_minutes": self.idle_s / 60, "stopping": self.stop_asked,
        }  # fmt: skip

    def stop_listening(self) -> None:
        """Take no more commands (those under way finish), and remove its socket file."""
        if not self.listening:
            return
        self.listening = False
        path = socket_path()
        with contextlib.suppress(OSError):
            if os.stat(path).st_ino == self.socket_inode:
                os.unlink(path)
        self.listener.close()
        os.close(self.lock)  # a new server may start while the commands under way finish

    def idle_left(self) -> float | None:
        """Seconds until it stops for want of commands (None while one runs)."""
        if self.running:
            return None
        return max(0.0, self.idle_s - (time.monotonic() - self.last_active))


def serve(idle_minutes: float) -> NoReturn:
    """The server's process: load the engine, listen, fork a process per command (unless a
    server started at the same moment holds the lock: then it is the one)."""
    lock = _only_server()
    for module in COMMAND_PRELOAD:
        importlib.import_module(module)
    try:
        for backend in ("pandas", "duckdb"):  # DuckDB's first connection sets up what the
            run_warm_up(backend)  # next ones reuse; closed, it leaves no thread behind
    except Exception:  # commands then load what it would have loaded: slower, never broken
        traceback.print_exc()
    gc.collect()
    gc.freeze()  # the loaded engine stays shared with the commands' processes
    path = Path(socket_path())
    path.unlink(missing_ok=True)  # no server answered at start: what is there is left over
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    os.chmod(path, 0o600)
    listener.listen(64)
    server = _Server(listener, idle_minutes * 60, _fingerprint(), lock, path.stat().st_ino)
    print(f"listening on {path} (pid {os.getpid()})", flush=True)
    wake_r, wake_w = os.pipe()
    for fd in (wake_r, wake_w):
        os.set_blocking(fd, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so that SIGCHLD wakes `select`
    signal.signal(signal.SIGTERM, lambda *_: setattr(server, "stop_asked", True))
    while server.listening or server.running:
        callers = [conn for conn in server.running.values() if conn is not None]
        waiting = [wake_r, *callers, *([listener] if server.listening else [])]
        readable = select.select(waiting, [], [], server.idle_left())[0]
        if wake_r in readable:
            with contextlib.suppress(BlockingIOError):
                os.read(wake_r, 4096)
            _report_ended(server)
        for conn in readable:
            if conn is listener:
                _accept(server, wake_r, wake_w)
            elif conn in callers:
                _caller_gone(server, conn)
        if server.stop_asked or server.idle_left() == 0:
            server.stop_listening()
    os._exit(0)


def _accept(server: _Server, *close_in_child: int) -> None:
    conn, _ = server.listener.accept()
    fds: list[int] = []
    try:
        request, fds = _receive(conn)
    except (OSError, ValueError) as error:  # socket.timeout included: a caller that hangs
        print(f"refused a request: {error}", flush=True)
        for fd in fds:
            os.close(fd)
        conn.close()
        return
    if _fingerprint() != server.fingerprint:
        server.stop_listening()
        _reply(conn, "stale")
        conn.close()
    elif "argv" in request and request.get("path", [])[1:] != sys.path[1:]:
        _reply(conn, "elsewhere")  # another PYTHONPATH: modules it may import are not loaded
        conn.close()
    elif "status" in request or "stop" in request:
        if "stop" in request:
            server.stop_asked = True
            server.stop_listening()
        _reply(conn, json.dumps(server.describe()))
        conn.close()
    else:
        pid = os.fork()
        if pid == 0:
            callers = [c.fileno() for c in server.running.values() if c is not None]
            inherited = (server.listener.fileno(), conn.fileno(), server.lock, *close_in_child)
            for fd in (*inherited, *callers):
                os.close(fd)
            _run_command(request, fds)
        server.commands += 1
        server.running[pid] = conn
        server.last_active = time.monotonic()  # asking its status does not keep it up
        _reply(conn, f"pid {pid}")
    for fd in fds:
        os.close(fd)


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    """A caller's request and the streams it passed, from a caller of this user only, within
    `REQUEST_TIMEOUT_S` (one that never sends would hold up every other)."""
    uid = peer_uid(conn)
    if uid != os.getuid():
        raise ValueError(f"a caller of user {uid} is not served")
    conn.settimeout(REQUEST_TIMEOUT_S)
    data, fds, _, _ = socket.recv_fds(conn, 65536, len(STREAMS))
    try:
        if len(data) < LENGTH.size:
            raise ValueError("a request too short")
        (size,) = LENGTH.unpack_from(data)
        if size > MAX_REQUEST_BYTES:
            raise ValueError("a request too long")
        data = data[LENGTH.size :]
        while len(data) < size:
            chunk = conn.recv(size - len(data))
            if not chunk:
                raise ValueError("a request cut short")
            data += chunk
        request = json.loads(data)
        if not isinstance(request, dict) or not isinstance(request.get("path", []), list):
            raise ValueError("a request of the wrong shape")
    except (OSError, ValueError):
        for fd in fds:
            os.close(fd)
        raise
    conn.settimeout(None)
    return request, fds


def _reply(conn: socket.socket, line: str) -> None:
    with contextlib.suppress(OSError):  # the caller gave up: nobody to tell
        conn.sendall(line.encode() + b"\n")


def _report_ended(server: _Server) -> None:
    """Reap every ended command's process and tell its caller the exit code (128 + the
    signal for a process a signal ended, as a shell says)."""
    while server.running:
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            return
        conn = server.running.pop(pid, None)
        server.last_active = time.monotonic()
        if conn is not None:
            code = os.waitstatus_to_exitcode(status)
            _reply(conn, f"exit {code if code >= 0 else 128 - code}")
            conn.close()


def _caller_gone(server: _Server, conn: socket.socket) -> None:
    """A caller closed its connection (callers never write after their request): end its
    command, as closing its terminal would have."""
    for pid, caller in server.running.items():
        if caller is conn:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
            conn.close()
            server.running[pid] = None
            return


def _run_command(request: dict, fds: list[int]) -> NoReturn:
    """In a forked process: become the caller's command and run it."""
    try:
        signal.set_wakeup_fd(-1)
        for signum in (signal.SIGCHLD, signal.SIGTERM):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        process_flags.die_with_parent()
        for target, fd in zip(STREAMS, fds, strict=True):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.umask(request["umask"])
        os.environ.clear()
        os.environ.update(request["env"])
        time.tzset()
        sys.path[:] = request["path"]
        sys.argv = [request["argv0"], *request["argv"]]
        sys.stdin, sys.stdout, sys.stderr = (
            _stream(fd, mode, *encoding)
            for fd, mode, encoding in zip(STREAMS, "rww", request["encodings"], strict=True)
        )
        from runtime.cli import run_as_process

        run_as_process(request["argv"])
    except SystemExit as done:  # argparse's --help and usage errors end this way
        code = done.code if isinstance(done.code, int) else 0 if done.code is None else 1
        if isinstance(done.code, str):
            print(done.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def _stream(fd: int, mode: str, encoding: str, errors: str) -> io.TextIOWrapper:
    """A standard stream on `fd` as the caller had it, buffered as Python buffers a fresh
    process's: by line on a terminal (or unbuffered output asked for), else in blocks."""
    by_line = os.isatty(fd) or bool(os.environ.get("PYTHONUNBUFFERED"))
    return open(  # the process's own stream, open until it exits
        fd, mode, buffering=1 if by_line else -1, encoding=encoding, errors=errors, closefd=False
    )
