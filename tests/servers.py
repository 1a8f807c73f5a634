"""Real servers for tests and benchmarks: daphne in a subprocess, over a database we share.

`DaphneServer` starts `python -m daphne … pipewright.asgi:application` on a free port,
waits until it answers HTTP, and stops it (SIGTERM) or kills it (SIGKILL, as a crash would).
The server reads the database `DATABASE_URL` names, so a test hands it the pytest test
database (`database_url`) and sees its own committed rows served. `install_plugin` really
installs the demo operator package (with its slow `pause` operator) into a folder that goes
on the server's PYTHONPATH. Fixtures over these live in tests/conftest.py; bench/ imports
this module directly.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "tests" / "plugin_demo"
START_TIMEOUT_S = 60
STOP_TIMEOUT_S = 10
URL_SCHEMES = {"sqlite3": "sqlite", "postgresql": "postgres", "mysql": "mysql"}
INPUT_CSV = "shared/rows.csv"
"""In the folder every workspace reads, so that any test user's pipeline finds it."""
_http = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: no proxy


def install_plugin(target: Path) -> Path:
    """Build and install the demo plugin (operators `reverse_rows`, `pause`) into `target`."""
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(target), str(PLUGIN)],
        check=True, capture_output=True,
    )  # fmt: skip
    return target


def pause_pipeline(
    name: str, nodes: int, seconds: float, chains: int = 1, max_concurrency: int | None = None
) -> dict:
    """A slow pipeline: `read` (INPUT_CSV) feeding `chains` chains of `pause` nodes in turn."""
    pauses = [f"p{index}" for index in range(nodes)]
    edges = [
        {"source": pauses[index - chains] if index >= chains else "read", "target": node}
        for index, node in enumerate(pauses)
    ]
    return {
        "format": "pipewright.pipeline",
        "version": 1,
        "name": name,
        "config": {"max_concurrency": max_concurrency},
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": INPUT_CSV}},
            *({"id": node, "operator": "pause", "params": {"seconds": seconds}} for node in pauses),
        ],
        "edges": edges,
    }


def write_input(data_root: Path) -> Path:
    """The small CSV file that `pause_pipeline` reads, under `data_root`."""
    (data_root / INPUT_CSV).parent.mkdir(parents=True, exist_ok=True)
    (data_root / INPUT_CSV).write_text("id,name\n1,Ada\n2,Grace\n")
    return data_root


def database_url(settings_dict: dict) -> str:
    """The `DATABASE_URL` of a Django connection's settings (for a server in another process)."""
    engine = settings_dict["ENGINE"].rsplit(".", 1)[-1]
    if engine == "sqlite3":
        return f"sqlite:///{settings_dict['NAME']}"
    user = quote(settings_dict.get("USER") or "", safe="")
    password = quote(settings_dict.get("PASSWORD") or "", safe="")
    credentials = f"{user}:{password}@" if user else ""
    port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
    return f"{URL_SCHEMES[engine]}://{credentials}{settings_dict['HOST']}{port}/{settings_dict['NAME']}"


def rss_bytes(pid: int) -> int:
    """The resident memory of a process, from /proc/<pid>/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for process {pid}")


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ServerProcess:
    """A Pipewright process over a database we share; its output goes to `log_path`."""

    def __init__(
        self,
        *,
        database: str,
        data_root: Path,
        log_path: Path,
        env: dict | None = None,
        python_path: Sequence[Path] = (),
    ):
        self.data_root = data_root
        self.log_path = log_path
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "pipewright.settings",
            "DATABASE_URL": database,
            "PIPEWRIGHT_DATA_ROOT": str(data_root),
            "PYTHONPATH": os.pathsep.join(str(path) for path in [*python_path, ROOT]),
            **(env or {}),
        }
        self.process: subprocess.Popen | None = None

    def command(self) -> list[str]:
        raise NotImplementedError

    def start(self):
        """Launch the process (without waiting for it to be ready)."""
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                self.command(), cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT
            )
        return self

    def stop(self) -> None:
        """Shut down the way an operator would (SIGTERM), killing it if it hangs."""
        self.terminate()
        self.wait_stopped()

    def terminate(self) -> None:
        """Ask the process to shut down (SIGTERM), without waiting."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)

    def wait_stopped(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """Wait for the process to end, killing it if it hangs."""
        if self.process is None:
            return
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    def kill(self) -> None:
        """Die at once, as in a crash (SIGKILL); the process is reaped, so its pid is gone."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def log(self) -> str:
        """What the process printed so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


class WorkerService(ServerProcess):
    """`manage.py runworkers`, looking at the queue every 50 ms."""

    READY = "runworkers: up to"

    def command(self) -> list[str]:
        return [sys.executable, "manage.py", "runworkers", "--poll", "0.05"]

    def wait_until_ready(self, timeout: float = START_TIMEOUT_S) -> WorkerService:
        """Block until it says it claims runs; fail with its log if it died or never did."""
        deadline = time.monotonic() + timeout
        while self.READY not in self.log():
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"runworkers exited with {self.process.returncode}:\n{self.log()}"
                )
            if time.monotonic() > deadline:
                raise RuntimeError(f"runworkers was not ready in {timeout} s:\n{self.log()}")
            time.sleep(0.05)
        return self

    def wait_to_say(self, words: str, timeout: float = 10) -> None:
        """Block until its log says `words`: a signal was handled, say. Two signals sent
        before the first is handled are one (the kernel keeps one pending SIGTERM)."""
        deadline = time.monotonic() + timeout
        while words not in self.log():
            if time.monotonic() > deadline:
                raise RuntimeError(f"runworkers did not say {words!r} in {timeout} s")
            time.sleep(0.05)


class SchedulerService(ServerProcess):
    """`manage.py runscheduler`, looking for due schedules every 50 ms."""

    READY = "runscheduler: looking"

    def command(self) -> list[str]:
        return [sys.executable, "manage.py", "runscheduler", "--tick", "0.05"]

    def wait_until_ready(self, timeout: float = START_TIMEOUT_S) -> SchedulerService:
        """Block until it says it looks for schedules; fail with its log if it never did."""
        deadline = time.monotonic() + timeout
        while self.READY not in self.log():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"runscheduler did not start:\n{self.log()}")
            time.sleep(0.05)
        return self


class DaphneServer(ServerProcess):
    """One daphne process serving Pipewright."""

    def __init__(self, *, app: str = "pipewright.asgi:application", **options):
        # It shares the tests' database: its own scheduler, on the real clock, would fire the
        # schedules other tests make (moving them past the times their fake clocks reach).
        options["env"] = {"PIPEWRIGHT_SCHEDULER": "service", **(options.get("env") or {})}
        super().__init__(**options)
        self.app = app
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        return [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port), self.app]

    def wait_until_ready(self, timeout: float = START_TIMEOUT_S) -> DaphneServer:
        """Block until the server answers HTTP; fail with its log if it died or never did."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne exited with {self.process.returncode}:\n{self.log()}")
            try:
                _http.open(f"{self.url}/api/operators", timeout=1).close()
            except urllib.error.HTTPError:
                return self  # 401: the server is up and refusing us, as it should
            except OSError:
                time.sleep(0.05)
                continue
            return self
        raise RuntimeError(f"daphne did not answer on {self.url} in {timeout} s:\n{self.log()}")

    def errors(self, lines: int = 30) -> str:
        """The last lines the server printed other than its access log (for failing tests)."""
        printed = [line for line in self.log().splitlines() if not line.startswith("127.0.0.1:")]
        return "\n".join(printed[-lines:])

    def request(
        self, method: str, path: str, body=None, token: str = "", timeout: float = 10
    ) -> tuple[int, object]:
        """`(status, json)` of one API call, with a bearer token if given (text if not JSON)."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(self.url + path, data, headers, method=method)
        try:
            with _http.open(request, timeout=timeout) as response:
                return response.status, _decode(response.read())
        except urllib.error.HTTPError as error:
            return error.code, _decode(error.read())


def _decode(body: bytes) -> object:
    try:
        return json.loads(body or b"null")
    except ValueError:
        return body.decode(errors="replace")


def start_servers(servers: list[DaphneServer]) -> list[DaphneServer]:
    """Start several servers side by side and wait for all of them."""
    for server in servers:
        server.start()
    for server in servers:
        server.wait_until_ready()
    return servers


def stop_servers(servers: list[DaphneServer]) -> None:
    """Stop several servers side by side."""
    for server in servers:
        server.terminate()
    for server in servers:
        server.wait_stopped()


async def api(server: DaphneServer, method: str, path: str, token: str, body=None) -> dict:
    """A JSON API call to `server` with a bearer token, off the event loop; asserts success."""
    status, answer = await asyncio.to_thread(server.request, method, path, body, token)
    assert status < 300, f"{method} {path}: {status} {answer}\nserver log:\n{server.errors()}"
    return answer


async def create_pipeline(server: DaphneServer, token: str, document: dict) -> int:
    """A new pipeline on `server`; its id."""
    return (await api(server, "POST", "/api/pipelines", token, document))["id"]
