"""A workspace's connection, checked and pinned each time it connects (connection_guard.py).

The guard travels with the connection's spec into the run's process (which never imports
Django), so these tests give the runtime a guarded spec as the editor does, and use the real
PostgreSQL of this machine.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3

import pytest
import sqlalchemy as sa

from runtime.budget import Budget
from runtime.errors import OperatorError
from runtime.io.paths import FileArea
from runtime.io.sql.connection_guard import ConnectionGuard, Server, StaffOnly
from runtime.io.sql.connection_specs import ConnectionSpec
from runtime.worker.wire import RunOrder
from tests.runtime.operators.sql_attacks import query

URL = "postgresql+psycopg://postgres@{host}:5432/test"
ALLOWED = ConnectionGuard(allow=("127.0.0.0/8",), private_allowed=True)


def answering(monkeypatch, address: str) -> None:
    """The resolver answers `address` for every name from now on (a DNS answer that changed)."""
    answer = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, 5432))]
    monkeypatch.setattr(socket, "getaddrinfo", lambda *args, **kwargs: answer)


def test_a_name_that_resolves_inward_at_connect_time_is_refused(monkeypatch, tmp_path):
    spec = ConnectionSpec(URL.format(host="db.example.com"), guard=ConnectionGuard())
    answering(monkeypatch, "127.0.0.1")
    with pytest.raises(OperatorError, match=r"connection 'db' is refused: db\.example\.com is a "):
        query(spec, tmp_path, "select 1 as one")


def test_the_connection_goes_to_the_address_that_was_checked(monkeypatch):
    answering(monkeypatch, "93.184.215.14")
    pinned = ConnectionGuard().pinned(sa.make_url(URL.format(host="db.example.com")))
    assert pinned.host == "db.example.com"  # TLS still verifies the name
    assert pinned.query["hostaddr"] == "93.184.215.14"
    mysql = sa.make_url("mysql+pymysql://root@db.example.com/test")
    assert ConnectionGuard().pinned(mysql).host == "93.184.215.14"


def test_a_pinned_connection_reads_from_the_checked_address(tmp_path):
    spec = ConnectionSpec(URL.format(host="localhost"), guard=ALLOWED)
    assert query(spec, tmp_path, "select inet_server_addr()::text as a").iloc[0, 0] in (
        "127.0.0.1/32",
        "::1/128",
    )


def test_an_allowed_private_host_needs_a_connection_staff_saved(tmp_path):
    guard = ConnectionGuard(allow=("127.0.0.0/8",), private_allowed=False)
    with pytest.raises(StaffOnly, match="only staff may save a connection"):
        guard.pinned(sa.make_url(URL.format(host="127.0.0.1")))
    spec = ConnectionSpec(URL.format(host="127.0.0.1"), guard=guard)
    with pytest.raises(OperatorError, match="is refused"):
        query(spec, tmp_path, "select 1 as one")


def test_a_refused_server_is_refused_whatever_the_allow_list(tmp_path):
    guard = ConnectionGuard(
        allow=("127.0.0.0/8", "::1"),
        private_allowed=True,
        refused=(Server("the application's own database", "localhost", 5432, "test"),),
    )
    for host in ("127.0.0.1", "[::1]", "[::ffff:127.0.0.1]", "2130706433", socket.gethostname()):
        spec = ConnectionSpec(URL.format(host=host), guard=guard)
        with pytest.raises(OperatorError, match="application's own database"):
            query(spec, tmp_path, "select 1 as one")
    other = ConnectionSpec(URL.format(host="127.0.0.1").replace("/test", "/postgres"), guard=guard)
    assert query(other, tmp_path, "select 1 as one").iloc[0, 0] == 1


def test_the_guard_travels_to_a_runs_process(tmp_path):
    """A run's process (local or a Dask worker) gets its order as a JSON message."""
    guard = ConnectionGuard(allow=("10.0.0.0/8",), refused=(Server("redis", "h", 6379),))
    specs = {"db": ConnectionSpec(URL.format(host="db.example.com"), guard=guard)}
    order = RunOrder(
        run_id=1, document={}, parameters={}, area=FileArea(tmp_path), connections=specs,
        budget=Budget(2**30, 1), sys_path=[],
    )  # fmt: skip
    message = json.loads(json.dumps(order.to_message()))
    assert RunOrder.from_message(message).connections == specs


def test_the_clis_own_connections_are_not_restricted(tmp_path):
    """The CLI's connections file is the operator's: no guard, loopback allowed."""
    spec = ConnectionSpec(URL.format(host="127.0.0.1"))
    assert query(spec, tmp_path, "select 1 as one").iloc[0, 0] == 1


def test_the_apps_own_sqlite_file_is_refused_under_any_name(tmp_path):
    """A link to the app's database inside a workspace (an operator's link, a mount) is the
    app's database: refused, while another file reads as always."""
    app_db = tmp_path / "db.sqlite3"
    with sqlite3.connect(app_db) as app:
        app.execute("CREATE TABLE django_session (session_key TEXT)")
    app.close()
    data_root = tmp_path / "data"
    data_root.mkdir()
    os.link(app_db, data_root / "linked.db")
    guard = ConnectionGuard(refused_files=(str(app_db),))
    with pytest.raises(OperatorError, match="the application's own database"):
        query(ConnectionSpec("sqlite:///linked.db", guard=guard), data_root, "select 1 as one")
    sqlite3.connect(data_root / "mine.db").close()
    mine = ConnectionSpec("sqlite:///mine.db", guard=guard)
    assert query(mine, data_root, "select 1 as one").iloc[0, 0] == 1
