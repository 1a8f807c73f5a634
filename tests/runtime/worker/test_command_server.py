"""The command server (`python -m runtime server start`): commands run in its forked processes
behave as commands run on their own — output, files, exit codes, Ctrl+C — and it serves only
its own user, only the code it loaded, and only while wanted. Real processes throughout."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from runtime.worker import command_client

ROOT = Path(__file__).resolve().parents[3]
NOBODY = 65534


def pipeline(folder: Path, name: str, read: str, *, config: dict | None = None) -> Path:
    """A csv_input → csv_output document in `folder`, reading `read` and writing out.csv."""
    document = {
        "format": "pipewright.pipeline", "version": 1, "name": name, "config": config or {},
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": read}},
            {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
        ],
        "edges": [{"source": "read", "target": "write"}],
    }  # fmt: skip
    path = folder / f"{name}.json"
    path.write_text(json.dumps(document))
    return path


class Commands:
    """`python -m runtime` as a user types it, with `XDG_RUNTIME_DIR` (where the server's
    socket lives) set to a private folder of the test's own."""

    def __init__(self, runtime_dir: Path):
        self.env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime_dir)}
        self.env.pop("PYTHONPATH", None)

    def popen(self, *args: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "-m", "runtime", *args], cwd=cwd, env={**self.env, **(env or {})},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip

    def run(self, *args: str, **options) -> subprocess.CompletedProcess:
        process = self.popen(*args, **options)
        out, err = process.communicate(timeout=120)
        return subprocess.CompletedProcess(process.args, process.returncode, out, err)

    def status(self) -> str:
        return self.run("server", "status").stdout

    def commands_run(self) -> int:
        """How many commands the server has run (it says so in `server status`)."""
        return int(self.status().split(": ")[1].split(" command")[0])


def private_folder(path: Path) -> Path:
    path.mkdir()
    path.chmod(0o700)
    return path


@contextlib.contextmanager
def running_server(runtime_dir: Path) -> Iterator[Commands]:
    """Commands with a command server of their own running; stopped (and gone) at the end."""
    cli = Commands(runtime_dir)
    started = cli.run("server", "start")
    assert started.returncode == 0, started.stderr
    pid = int(started.stdout.split("(pid ")[1].split(",")[0])
    try:
        yield cli
    finally:
        cli.run("server", "stop")
        wait_for(lambda: not Path(f"/proc/{pid}").exists() or _zombie(pid))


@pytest.fixture
def commands(tmp_path):
    with running_server(private_folder(tmp_path / "xdg")) as cli:
        yield cli


def _zombie(pid: int) -> bool:
    return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")


def wait_for(condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.05)


def test_a_command_the_server_runs_prints_writes_and_exits_as_it_would_on_its_own(
    commands, tmp_path
):
    data = tmp_path / "data"
    data.mkdir()
    (data / "in.csv").write_text("id,name\n1,Ada\n2,Grace\n")
    document = pipeline(tmp_path, "copy", "in.csv")
    env = {"PIPEWRIGHT_DATA_ROOT": str(data)}  # its environment, not the server's

    served = commands.run("run", str(document), "--no-cache", cwd=tmp_path, env=env)

    assert served.returncode == 0, served.stderr
    assert (data / "out.csv").read_text() == "id,name\n1,Ada\n2,Grace\n"
    assert commands.commands_run() == 1
    alone = Commands(private_folder(tmp_path / "no-server"))
    (data / "out.csv").unlink()
    on_its_own = alone.run("run", str(document), "--no-cache", cwd=tmp_path, env=env)
    assert (data / "out.csv").exists()
    assert _without_times(served.stdout) == _without_times(on_its_own.stdout)
    assert "read   succeeded                  2" in served.stdout


def _without_times(text: str) -> list[str]:
    return [" ".join(w for w in line.split() if not w[:1].isdigit()) for line in text.splitlines()]


def test_invalid_documents_usage_errors_and_help_exit_with_their_codes(commands, tmp_path):
    (tmp_path / "broken.json").write_text('{"nodes": [')
    invalid = commands.run("run", "broken.json", cwd=tmp_path)
    assert (invalid.returncode, invalid.stdout) == (2, "")
    assert "broken.json: not valid JSON" in invalid.stderr
    usage = commands.run("run")
    assert usage.returncode == 2
    assert "error: the following arguments are required: file" in usage.stderr
    help_ = commands.run("--help")
    assert (help_.returncode, help_.stderr) == (0, "")
    assert help_.stdout.startswith("usage: python -m runtime")
    assert commands.commands_run() == 3


def slow_run(commands: Commands, folder: Path) -> subprocess.Popen:
    """A run under way in the server that would take minutes: its input's last row breaks
    every read, and it retries after 60 s."""
    (folder / "bad.csv").write_text("a,b\n" + "1,2\n" * 100_000 + "3,4,5\n")
    config = {"retries": 3, "retry_delay_s": 60}
    document = pipeline(folder, "slow", "bad.csv", config=config)
    process = commands.popen("run", str(document), "--no-cache", cwd=folder)
    wait_for(lambda: "1 under way" in commands.status())
    return process


def test_ctrl_c_reaches_the_command_which_cancels_its_run(commands, tmp_path):
    process = slow_run(commands, tmp_path)
    time.sleep(0.5)  # past the first attempt's start

    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)

    assert process.returncode == 130
    assert "cancelling" in err
    assert "run cancelled in" in out


def test_a_caller_that_is_killed_takes_its_command_with_it(commands, tmp_path):
    process = slow_run(commands, tmp_path)

    process.kill()
    process.wait()

    wait_for(lambda: "0 under way" in commands.status())


def test_a_server_older_than_the_installed_packages_stops_and_the_command_runs_alone(
    commands, tmp_path
):
    (tmp_path / "in.csv").write_text("x\n1\n")
    document = pipeline(tmp_path, "copy", "in.csv")
    os.utime(sysconfig.get_paths()["purelib"])  # as `pip install` changes the folder

    result = commands.run("run", str(document), "--data-root", str(tmp_path), cwd=tmp_path)

    assert result.returncode == 0, result.stderr
    assert "the command server was started before the engine or its packages changed" in (
        result.stderr
    )
    assert (tmp_path / "out.csv").read_text() == "x\n1\n"
    assert commands.status() == "no command server is running\n"


def test_a_caller_with_another_module_path_runs_its_command_alone(commands, tmp_path):
    (tmp_path / "in.csv").write_text("x\n1\n")
    document = pipeline(tmp_path, "copy", "in.csv")
    env = {"PYTHONPATH": str(tmp_path)}  # a module there could shadow one the server loaded

    result = commands.run("run", str(document), "--data-root", str(tmp_path), env=env)

    assert (result.returncode, result.stderr) == (0, "")
    assert (tmp_path / "out.csv").exists()
    assert commands.commands_run() == 0


def test_the_server_stops_after_its_idle_minutes(tmp_path):
    cli = Commands(private_folder(tmp_path / "xdg"))
    started = cli.run("server", "start", "--idle-minutes", "0.02")
    assert "stops after 0.02 minutes without a command" in started.stdout

    wait_for(lambda: cli.status() == "no command server is running\n")
    assert list((tmp_path / "xdg" / "pipewright").glob("*.sock")) == []


def test_two_starts_at_once_start_one_server(tmp_path):
    cli = Commands(private_folder(tmp_path / "xdg"))
    starts = [cli.popen("server", "start") for _ in range(2)]
    said = [start.communicate(timeout=120)[0] for start in starts]
    try:
        assert [start.returncode for start in starts] == [0, 0]
        pids = {text.split("(pid ")[1].split(",")[0] for text in said}
        assert len(pids) == 1, said  # both name the one that listens
        (pid,) = pids
        assert "started" in "".join(said)
        wait_for(lambda: _servers_of(tmp_path / "xdg") == [int(pid)])  # the other has gone
    finally:
        cli.run("server", "stop")


def _servers_of(runtime_dir: Path) -> list[int]:
    """The pids of the command servers started with `runtime_dir` as XDG_RUNTIME_DIR."""
    found = []
    for proc in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            environ = (proc / "environ").read_bytes().split(b"\0")
            command = (proc / "cmdline").read_bytes()
            if b"command_server import serve" in command and (
                f"XDG_RUNTIME_DIR={runtime_dir}".encode() in environ
            ):
                found.append(int(proc.name))
    return found


def test_start_refuses_a_folder_other_users_may_enter(tmp_path):
    runtime_dir = private_folder(tmp_path / "xdg")
    (runtime_dir / "pipewright").mkdir(mode=0o777)
    (runtime_dir / "pipewright").chmod(0o777)

    result = Commands(runtime_dir).run("server", "start")

    assert result.returncode == 2
    assert "pipewright must belong to you, and no other user may enter it" in result.stderr


def test_start_refuses_a_folder_another_user_could_swap(tmp_path):
    runtime_dir = private_folder(tmp_path / "xdg")
    runtime_dir.chmod(0o777)  # as /tmp is: anyone may rename what is in it

    result = Commands(runtime_dir).run("server", "start")

    assert result.returncode == 2
    assert "xdg must belong to you, and no other user may write in it" in result.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to act as another user")
def test_another_users_process_is_not_served_even_where_it_can_reach_the_socket():
    with (
        tempfile.TemporaryDirectory() as runtime_dir,  # in /tmp: its parents let nobody in
        running_server(Path(runtime_dir)) as commands,
    ):
        folder = Path(runtime_dir) / "pipewright"
        (sock,) = folder.glob("*.sock")
        assert _connects_as_nobody(sock) is False  # the folder is closed to them
        folder.chmod(0o755)
        Path(runtime_dir).chmod(0o755)
        sock.chmod(0o777)

        assert _connects_as_nobody(sock) is True  # the socket is reachable now…
        assert commands.commands_run() == 0  # …and the request was refused


def _connects_as_nobody(sock: Path) -> bool:
    """Whether a process of user nobody can connect to `sock`; if it can, it asks the server
    to run a command, as a caller would (and fails the test if it is answered)."""
    data = json.dumps({"argv": ["--help"], "cwd": "/", "env": {}, "path": sys.path}).encode()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            with socket.socket(socket.AF_UNIX) as conn:
                conn.connect(str(sock))
                try:
                    socket.send_fds(conn, [len(data).to_bytes(4, "big") + data], [0, 1, 2])
                    answer = conn.recv(100)
                except (BrokenPipeError, ConnectionResetError):  # closed on it
                    answer = b""
                code = 4 if answer else 5
        except PermissionError:
            code = 3
        finally:
            os._exit(code)
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    assert code in (3, 5), code  # 4: it was answered
    return code == 5


def test_only_its_own_user_may_use_the_socket_file(commands):
    (sock,) = (Path(commands.env["XDG_RUNTIME_DIR"]) / "pipewright").glob("*.sock")
    assert sock.stat().st_mode & 0o777 == 0o600
    assert sock.parent.stat().st_mode & 0o777 == 0o700
    with socket.socket(socket.AF_UNIX) as conn:
        conn.connect(str(sock))  # the owner may


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to act as another user")
def test_a_caller_sends_nothing_to_a_socket_another_user_listens_on(tmp_path, monkeypatch):
    """Where another user could put a socket at the server's path, a caller would hand it its
    environment and terminal: it checks who listens first, and runs its command alone."""
    shared = Path(tempfile.mkdtemp())  # in /tmp: its parents let nobody in
    shared.chmod(0o777)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(shared))
    (shared / "pipewright").mkdir(mode=0o777)
    (shared / "pipewright").chmod(0o777)
    path = command_client.socket_path()
    (tmp_path / "in.csv").write_text("x\n1\n")
    document = pipeline(tmp_path, "copy", "in.csv")
    heard_r, heard_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the other user's impostor: listens, and says how many bytes it was sent
        try:
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            with socket.socket(socket.AF_UNIX) as listener:
                listener.bind(path)
                listener.listen()
                os.write(heard_w, b"listening\n")
                listener.settimeout(20)
                conn, _ = listener.accept()
                conn.settimeout(2)
                with contextlib.suppress(OSError):
                    os.write(heard_w, f"{len(conn.recv(65536))}\n".encode())
        finally:
            os._exit(0)
    os.close(heard_w)
    try:
        heard = os.fdopen(heard_r)
        assert heard.readline() == "listening\n"

        result = Commands(shared).run("validate", str(document))

        assert (result.returncode, result.stdout) == (0, f"{document}: valid\n")
        assert heard.readline() == "0\n"  # it connected, looked, and sent nothing
    finally:
        os.waitpid(pid, 0)
        shutil.rmtree(shared)


def test_a_command_under_interpreter_options_runs_in_its_own_interpreter(commands, tmp_path):
    (tmp_path / "in.csv").write_text("x\n1\n")
    document = pipeline(tmp_path, "copy", "in.csv")
    profiled = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "runtime", "validate", str(document)],
        cwd=ROOT, env=commands.env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip

    assert profiled.returncode == 0, profiled.stderr
    assert "runtime.document.spec" in profiled.stderr  # its imports, timed here
    assert commands.commands_run() == 0
