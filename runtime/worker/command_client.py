"""A command of `python -m runtime` handed to the command server, when one is running.

Starting Python and importing the engine costs a short command most of its time (0.3 CPU-s
against milliseconds of work: docs/performance.md). `python -m runtime server start` keeps
one process with the engine loaded (runtime/worker/command_server.py); every later command
of the same user, Python and engine connects to it first, and the server forks a process that
runs the command as this one would: with this process's arguments, working directory,
environment, umask and its standard streams themselves (passed over the socket), so output,
colours and exit codes are the same. Ctrl+C and other signals are passed on to that process.
When no server answers, or it was started before the engine or its packages changed, the
command runs here, as before.

This module is imported before anything else by every command, so it imports only what a
bare interpreter has already loaded or costs microseconds (os.path, not pathlib).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import struct
import sys
import zlib

RUNTIME_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
"""The engine this process would run: a server runs commands only for the same one."""
FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
LENGTH = struct.Struct("!I")
"""A request is its length, then that many bytes of JSON."""
STREAMS = (0, 1, 2)
DEFAULT_IDLE_MINUTES = 30.0
"""How long a server waits for a command before it stops (`server start --idle-minutes`)."""


def server_folder() -> str:
    """The user's private folder the server's socket lives in: the session's runtime folder
    when the system gives one, else one under /tmp named after the user's id."""
    base = os.environ.get("XDG_RUNTIME_DIR") or f"/tmp/pipewright-{os.getuid()}"
    return os.path.join(base, "pipewright")


def socket_path() -> str:
    """The socket of the server for this Python and this engine: a different virtualenv or
    checkout has its own."""
    key = f"{sys.executable}\0{RUNTIME_DIR}".encode()
    return os.path.join(server_folder(), f"commands-{zlib.crc32(key):08x}.sock")


def connect() -> socket.socket | None:
    """A connection to the running server, or None when none listens there, or when what
    listens is another user's process (the request carries this process's environment)."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(socket_path())
        if peer_uid(conn) == os.getuid():
            return conn
    except OSError:
        pass
    conn.close()
    return None


def peer_uid(conn: socket.socket) -> int:
    """The user id of the process at the other end of `conn`, as the kernel knows it."""
    credentials = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)  # pid, uid, gid
    return int.from_bytes(credentials[4:8], sys.byteorder)


def send_request(conn: socket.socket, request: dict, fds: list[int] = ()) -> None:
    data = json.dumps(request).encode()
    socket.send_fds(conn, [LENGTH.pack(len(data)) + data], list(fds))


def forward(argv: list[str]) -> int | None:
    """Run the command `argv` in the server's new process; its exit code, or None when no
    server can run it (the caller runs it in this process)."""
    if argv[:1] == ["server"] or _interpreter_options():
        return None
    try:
        cwd = os.getcwd()
    except OSError:  # its folder was removed: the command says so, on its own
        return None
    conn = connect()
    if conn is None:
        return None
    with conn:
        umask = os.umask(0)
        os.umask(umask)
        request = {
            "argv": argv, "cwd": cwd, "env": dict(os.environ), "umask": umask,
            "path": sys.path, "argv0": sys.argv[0], "encodings": _encodings(),
        }  # fmt: skip
        try:
            send_request(conn, request, _standard_streams())
        except OSError:
            return None
        replies = conn.makefile("r", encoding="utf-8")
        first = replies.readline().split()
        if first[:1] == ["stale"]:
            print(
                "pipewright: the command server was started before the engine or its packages "
                "changed, so it stopped; this command runs on its own "
                "(`python -m runtime server start` starts a new one)",
                file=sys.stderr,
            )
        if first[:1] != ["pid"]:
            return None
        with _signals_passed_to(int(first[1])):
            last = replies.readline().split()
    if last[:1] == ["exit"]:
        return int(last[1])
    print("pipewright: the command server ended during the command", file=sys.stderr)
    return 1


def _interpreter_options() -> bool:
    """Whether this interpreter was started with options the server's does not have (`-X
    importtime`, `-W error`, `-O`, development mode): then the command runs here, under them."""
    flags = sys.flags
    return bool(sys._xoptions or sys.warnoptions or flags.optimize or flags.dev_mode)


def _encodings() -> list[list[str]]:
    """The encoding and error handling of this process's three standard streams."""
    streams = (sys.stdin, sys.stdout, sys.stderr)
    return [[getattr(s, "encoding", "utf-8"), getattr(s, "errors", "strict")] for s in streams]


def _standard_streams() -> list[int]:
    """This process's standard input, output and error (/dev/null for any that is closed)."""
    fds = []
    for fd in STREAMS:
        try:
            os.fstat(fd)
        except OSError:
            fd = os.open(os.devnull, os.O_RDWR)
        fds.append(fd)
    return fds


class _signals_passed_to:
    """While active, the signals that would end this process go to `pid` instead: its
    command then ends as it would here (Ctrl+C cancels a run) and the server says how."""

    def __init__(self, pid: int):
        self.pid = pid
        self.previous: dict[int, object] = {}

    def __enter__(self) -> None:
        for signum in FORWARDED_SIGNALS:
            self.previous[signum] = signal.signal(signum, self._pass_on)

    def __exit__(self, *_) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)

    def _pass_on(self, signum: int, _frame) -> None:
        with contextlib.suppress(ProcessLookupError):  # it just ended: its exit code is coming
            os.kill(self.pid, signum)


def main() -> None:
    """`python -m runtime` and the `pipewright` script: the command in the server's process
    when one can run it, else in this one; then the process exits."""
    code = forward(sys.argv[1:])
    if code is None:
        from runtime.cli import run_as_process

        run_as_process()
    os._exit(code)
