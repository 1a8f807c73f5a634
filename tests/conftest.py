"""Fixtures for every test folder: the demo plugin installed for real, live servers, and
TPC-H data.

`asgi_server` is one daphne process for the whole session over the pytest test database
(with the in-memory channel layer); `start_server` starts more (over Redis, to be killed…)
for one test. Rows a `transactional_db` test commits are what these servers serve.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.register_assert_rewrite("tests.live_client")

from runtime.operators.registry import default_registry  # noqa: E402
from tests.servers import (  # noqa: E402
    DaphneServer,
    WorkerService,
    database_url,
    install_plugin,
    start_servers,
    stop_servers,
    write_input,
)

TPCH_SCALE = 0.01
"""60,175 lineitem rows: every TPC-H query runs in a fraction of a second."""
REDIS_URL = os.environ.get("PIPEWRIGHT_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture(scope="session")
def plugin_site(tmp_path_factory) -> Path:
    """The demo plugin, really built and installed (into its own folder)."""
    return install_plugin(tmp_path_factory.mktemp("site"))


@pytest.fixture
def pause_operator(plugin_site) -> Iterator[None]:
    """The plugin's operators (`pause`) in this process's registry, for one test."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(plugin_site))
        default_registry.cache_clear()
        yield
    default_registry.cache_clear()


@pytest.fixture(scope="session")
def server_database(django_db_setup) -> str:
    """The `DATABASE_URL` of the pytest test database, for servers in other processes."""
    from django.db import connection

    return database_url(connection.settings_dict)


@pytest.fixture(scope="session")
def new_server(server_database, plugin_site, tmp_path_factory):
    """`new_server(env)`: an unstarted daphne over the test database, with the plugin (or
    another kind of process: `WorkerService`)."""

    def new(env: dict | None = None, data_root: Path | None = None, kind=DaphneServer):
        folder = tmp_path_factory.mktemp("server")
        return kind(
            database=server_database,
            data_root=write_input(data_root or folder / "data"),
            log_path=folder / f"{kind.__name__}.log",
            env=env,
            python_path=[plugin_site],
        )

    return new


@pytest.fixture(scope="session")
def asgi_server(new_server) -> Iterator[DaphneServer]:
    """A daphne process serving the test database for the whole session (in-memory layer).
    It never looks for runs that other processes queued: a test may keep runs queued
    (`PIPEWRIGHT_WORKERS=service`) and expect them to stay so while no browser test runs."""
    [server] = start_servers([new_server({"PIPEWRIGHT_QUEUE_LOOK_S": "0"})])
    yield server
    server.stop()


@pytest.fixture
def start_server(new_server) -> Iterator:
    """`start_server(count, env)`: more servers for one test, ready; stopped at its end."""
    started: list[DaphneServer] = []

    def start(count: int = 1, env: dict | None = None, data_root: Path | None = None):
        servers = [new_server(env, data_root) for _ in range(count)]
        started.extend(servers)
        return start_servers(servers)

    yield start
    stop_servers(started)


@pytest.fixture
def start_workers(new_server) -> Iterator:
    """`start_workers(env, data_root)`: a `manage.py runworkers` for one test, ready."""
    started: list[WorkerService] = []

    def start(env: dict | None = None, data_root: Path | None = None) -> WorkerService:
        service = new_server(env, data_root, WorkerService)
        started.append(service)
        return service.start().wait_until_ready()

    yield start
    stop_servers(started)


@pytest.fixture(scope="session")
def redis_layer() -> Iterator[dict]:
    """Server environment for the Redis channel layer, with keys of this session only.

    Fails (never skips) when Redis is not there: CI must not pass without these tests.
    """
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    try:
        client.ping()
    except redis.RedisError as error:
        pytest.fail(f"Redis is needed at {REDIS_URL} (PIPEWRIGHT_TEST_REDIS_URL): {error}")
    prefix = f"pwtest-{uuid.uuid4().hex[:12]}"
    yield {"REDIS_URL": REDIS_URL, "PIPEWRIGHT_CHANNEL_PREFIX": prefix}
    for key in client.scan_iter(f"{prefix}*"):
        client.delete(key)
    client.close()


@pytest.fixture(scope="session")
def tpch_files(tmp_path_factory) -> Path:
    """TPC-H at scale factor 0.01 as tpchgen-cli writes it (Parquet with DECIMAL money and
    string_view text in `parquet/`, the same tables in `csv/`), generated once per session.

    Fails (never skips) without tpchgen-cli, a dev dependency: CI must run these tests.
    """
    from bench import tpch

    try:
        tpch.tpchgen()
    except SystemExit as missing:
        pytest.fail(str(missing))
    return tpch.generate(TPCH_SCALE, tmp_path_factory.mktemp("tpch"))
