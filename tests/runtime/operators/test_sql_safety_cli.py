"""The connection rules through the runtime CLI: read-only and SQLite rules from its
connections file, and a clear error for a bad one (see sql_attacks.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.runtime.test_cli import runtime_cli


def cli_pipeline(tmp_path: Path, connections: dict, nodes: list, edges=()) -> object:
    (tmp_path / "connections.json").write_text(json.dumps(connections))
    document = {"name": "t", "nodes": nodes, "edges": list(edges)}
    (tmp_path / "p.json").write_text(json.dumps(document))
    return runtime_cli(
        "run", "p.json", "--data-root", "data", "--connections", "connections.json",
        cwd=tmp_path,
    )  # fmt: skip


def test_the_cli_takes_read_only_connections_and_refuses_writes_through_them(app, tmp_path):
    nodes = [
        {"id": "read", "operator": "sql_input",
         "params": {"connection": "shop", "query": "SELECT * FROM auth_user"}},
        {"id": "write", "operator": "sql_output",
         "params": {"connection": "shop", "table": "auth_user"}},
    ]  # fmt: skip
    connections = {"shop": {"url": "sqlite:///copy.db", "read_only": True}}
    result = cli_pipeline(tmp_path, connections, nodes, [{"source": "read", "target": "write"}])
    assert result.returncode == 1
    assert "connection 'shop' is read-only" in result.stderr


def test_the_cli_applies_the_sqlite_rules(app, tmp_path):
    app_db, _ = app
    nodes = [
        {"id": "read", "operator": "sql_input",
         "params": {"connection": "app", "query": f"ATTACH DATABASE '{app_db}' AS app"}},
    ]  # fmt: skip
    for url, message in [(f"sqlite:///{app_db}", "is an absolute path"), ("sqlite:///copy.db",
                         "refused: an SQLite connection may not attach")]:  # fmt: skip
        result = cli_pipeline(tmp_path, {"app": url}, nodes)
        assert result.returncode == 1
        assert message in result.stderr


@pytest.mark.parametrize(
    "connections",
    [
        {"db": 5},
        {"db": {"read_only": True}},
        {"db": {"url": "sqlite:///a.db", "read_only": "yes"}},
        {"db": {"url": "sqlite:///a.db", "password": "x"}},
        ["sqlite:///a.db"],
    ],
    ids=["number", "no-url", "read-only-not-a-boolean", "unknown-key", "a-list"],
)
def test_a_bad_connections_file_is_a_clear_error(tmp_path, connections):
    (tmp_path / "data").mkdir()
    node = {"id": "read", "operator": "sql_input",
            "params": {"connection": "db", "query": "SELECT 1"}}  # fmt: skip
    result = cli_pipeline(tmp_path, connections, [node])
    assert result.returncode == 2
    assert "error: connections file 'connections.json'" in result.stderr
    assert "Traceback" not in result.stderr
