"""The deployment docs/deploy.md describes, started from the page's own shell blocks.

One deployment for the module: a PostgreSQL database of its own, Redis under a prefix of its
own, the certificates made by the page's recipe, a TLS Dask scheduler and two workers, the
page's `migrate`, two daphne web processes, `runworkers` and `runscheduler`. What a test user
needs (an account, a token, a signed-in session) is made the way an operator and a browser
make them. Everything started is stopped at the end, and the database and the Redis keys are
dropped. A service that is missing fails the tests, never skips them.
"""

from __future__ import annotations

import http.cookiejar
import os
import secrets
import subprocess
import sys
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from distributed import Client, Security

from tests.deploy.documented import block, exports, here, programs
from tests.servers import (
    ROOT,
    DaphneServer,
    SchedulerService,
    ServerProcess,
    WorkerService,
    free_port,
    stop_servers,
    write_input,
)

POSTGRES_URL = os.environ.get("PIPEWRIGHT_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432")
USER, PASSWORD = "deploy", secrets.token_urlsafe(16)
WORKERS = 2
START_TIMEOUT_S = 60
GIVEN_HERE = {
    "DATABASE_URL", "REDIS_URL", "PIPEWRIGHT_DATA_ROOT", "PIPEWRIGHT_SECRET_KEY",
    "PIPEWRIGHT_ENCRYPTION_KEY", "PIPEWRIGHT_DASK_SCHEDULER",
}  # fmt: skip
"""What the page's `export` lines set to its example values, which this machine replaces."""
VENV_BIN = str(Path(sys.executable).parent)
"""First on every process's PATH: `python`, `daphne` and `dask` are the installed ones."""


class Written:
    """A process started with a command of the page's (`argv`), rather than its class's own."""

    argv: list[str]

    def command(self) -> list[str]:
        return self.argv


class WrittenDaphne(Written, DaphneServer):
    pass


class WrittenWorkers(Written, WorkerService):
    pass


class WrittenScheduler(Written, SchedulerService):
    pass


@dataclass
class Deployment:
    web: list[DaphneServer]
    token: str
    cookie: str
    dask_address: str
    security: Security
    data_root: Path
    processes: list[ServerProcess] = field(default_factory=list)

    def observer(self) -> Client:
        """A client of the cluster with the web server's certificate, as its operator has."""
        return Client(self.dask_address, security=self.security, set_as_default=False)


@pytest.fixture(scope="module")
def postgres_database() -> Iterator[str]:
    """A PostgreSQL database of this module's own: its `DATABASE_URL`."""
    import psycopg

    name = f"pipewright_deploy_{uuid.uuid4().hex[:10]}"
    try:
        admin = psycopg.connect(f"{POSTGRES_URL}/postgres", autocommit=True)
    except psycopg.Error as error:
        pytest.fail(
            f"PostgreSQL is needed at {POSTGRES_URL} (PIPEWRIGHT_TEST_POSTGRES_URL): {error}"
        )
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        yield f"{POSTGRES_URL}/{name}"
        admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


@pytest.fixture(scope="module")
def certificates(tmp_path_factory) -> Path:
    """The folder where the page's recipe made the cluster's certificates."""
    folder = tmp_path_factory.mktemp("certificates")
    subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block("certificates")],
        cwd=folder, check=True, capture_output=True,
    )  # fmt: skip
    return folder


@pytest.fixture(scope="module")
def dask_cluster(certificates, plugin_site, tmp_path_factory) -> Iterator[tuple[str, dict]]:
    """The page's scheduler and, twice, its worker, each started in the certificates' folder
    with the demo plugin installed: `(address, the exports for whoever executes runs)`."""
    port = free_port()
    address = f"tls://127.0.0.1:{port}"
    mapping = {"scheduler:8786": f"127.0.0.1:{port}", "--port 8786": f"--port {port}",
               "127.0.0.1:8787": "127.0.0.1:0"}  # fmt: skip
    scheduler, worker = programs("dask")
    assert scheduler.startswith("dask scheduler ") and worker.startswith("dask worker ")
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": os.pathsep.join([str(plugin_site), str(ROOT)])}  # fmt: skip
    logs = tmp_path_factory.mktemp("dask-logs")
    started = [
        _launch(here(command, mapping), certificates, env, logs / f"{number}.log")
        for number, command in enumerate([scheduler, *[worker] * WORKERS])
    ]
    variables = {
        name: str(certificates / value) if value.endswith(".pem") else value
        for name, value in exports("dask").items()
    }
    variables["PIPEWRIGHT_DASK_SCHEDULER"] = address
    try:
        with Client(address, security=security_of(variables), timeout=START_TIMEOUT_S,
                    set_as_default=False) as client:  # fmt: skip
            client.wait_for_workers(WORKERS, timeout=START_TIMEOUT_S)
        yield address, variables
    finally:
        for process in reversed(started):
            process.terminate()
        for process in started:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def security_of(variables: dict[str, str]) -> Security:
    """Dask's client security from the page's DASK_DISTRIBUTED__COMM__TLS__* exports."""
    return Security(
        tls_ca_file=variables["DASK_DISTRIBUTED__COMM__TLS__CA_FILE"],
        tls_client_cert=variables["DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT"],
        tls_client_key=variables["DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY"],
        require_encryption=variables["DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION"] == "True",
    )


def _launch(argv: list[str], cwd: Path, env: dict, log: Path) -> subprocess.Popen:
    with log.open("wb") as output:
        return subprocess.Popen(argv, cwd=cwd, env=env, stdout=output, stderr=subprocess.STDOUT)


@pytest.fixture(scope="module")
def deployment(
    postgres_database, redis_layer, dask_cluster, plugin_site, tmp_path_factory
) -> Iterator[Deployment]:
    """The worker service's block and the Dask block, started together as the page says."""
    address, dask_variables = dask_cluster
    folder = tmp_path_factory.mktemp("deployment")
    data_root = write_input(folder / "data")
    written = exports("service")
    assert GIVEN_HERE - {"PIPEWRIGHT_DASK_SCHEDULER"} <= set(written), written
    env = {
        **written,
        **dask_variables,
        "DATABASE_URL": postgres_database,
        "REDIS_URL": redis_layer["REDIS_URL"],
        "PIPEWRIGHT_DATA_ROOT": str(data_root),
        "PIPEWRIGHT_SECRET_KEY": secrets.token_urlsafe(50),
        "PIPEWRIGHT_ENCRYPTION_KEY": Fernet.generate_key().decode(),
        "PIPEWRIGHT_CHANNEL_PREFIX": redis_layer["PIPEWRIGHT_CHANNEL_PREFIX"],
        "PATH": f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}",
    }
    options = {"database": postgres_database, "data_root": data_root, "env": env,
               "python_path": [plugin_site]}  # fmt: skip
    migrate, daphne, workers, scheduler = programs("service")
    assert (migrate, workers, scheduler) == (
        "python manage.py migrate", "python manage.py runworkers", "python manage.py runscheduler",
    )  # fmt: skip
    web = []
    for number in range(2):
        server = WrittenDaphne(log_path=folder / f"web-{number}.log", **options)
        server.argv = here(daphne, {"-b 0.0.0.0": "-b 127.0.0.1", "-p 8000": f"-p {server.port}"})
        web.append(server)
    manage = _manage(web[0].env)
    manage(here(migrate, {}))
    service = WrittenWorkers(log_path=folder / "runworkers.log", **options)
    service.argv = here(workers, {})
    schedules = WrittenScheduler(log_path=folder / "runscheduler.log", **options)
    schedules.argv = here(scheduler, {})
    processes = [*web, service, schedules]
    try:
        for process in processes:
            process.start()
        for process in processes:
            process.wait_until_ready(START_TIMEOUT_S)
        manage(["python", "manage.py", "createsuperuser", "--noinput", "--username", USER,
                "--email", "deploy@example.com"], DJANGO_SUPERUSER_PASSWORD=PASSWORD)  # fmt: skip
        token = manage(["python", "manage.py", "createtoken", USER]).strip()
        yield Deployment(
            web=web, token=token, cookie=sign_in(web[0], USER, PASSWORD),
            dask_address=address, security=security_of(dask_variables), data_root=data_root,
            processes=processes,
        )  # fmt: skip
    finally:
        stop_servers(processes)


def _manage(env: dict):
    """`run(argv, **more_env)`: a one-off command of the deployment's; its output."""

    def run(argv: list[str], **more: str) -> str:
        done = subprocess.run(
            argv, cwd=ROOT, env={**env, **more}, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, f"{argv}: {done.stdout}{done.stderr}"
        return done.stdout

    return run


def sign_in(server: DaphneServer, username: str, password: str) -> str:
    """Sign in through the login form, as a browser does: the session's `Cookie` header."""
    jar = http.cookiejar.CookieJar()
    browser = urllib.request.build_opener(
        urllib.request.ProxyHandler({}), urllib.request.HTTPCookieProcessor(jar)
    )
    login = f"{server.url}/accounts/login/"
    browser.open(login, timeout=10).close()
    csrf = next(cookie.value for cookie in jar if cookie.name == "csrftoken")
    form = urllib.parse.urlencode(
        {"username": username, "password": password, "csrfmiddlewaretoken": csrf}
    ).encode()
    request = urllib.request.Request(login, form, {"Referer": login, "Origin": server.url})
    browser.open(request, timeout=10).close()
    session = next((cookie.value for cookie in jar if cookie.name == "sessionid"), None)
    assert session, f"signing in as {username} failed:\n{server.errors()}"
    return f"sessionid={session}"
