"""The operator contract for `sql_input` and `sql_output`, on SQLite, PostgreSQL and
MariaDB (the `db` fixture of conftest.py), with their refused params.
"""

from __future__ import annotations

import pytest

from runtime.operators.sql import SqlInput, SqlOutput
from tests.runtime.operators import contract
from tests.runtime.operators.contract import OperatorContract
from tests.runtime.operators.sql_nodes import people, write


class DatabaseContract(OperatorContract):
    """The contract, on each database, with the connection `db` known to every context."""

    @pytest.fixture(autouse=True)
    def _connected(self, db, monkeypatch):
        unconnected = contract.make_ctx

        def connected(operator, params, _data_root, **options):
            return unconnected(
                operator, params, db.data_root, connections=db.connections, **options
            )

        monkeypatch.setattr(contract, "make_ctx", connected)
        write(db, people(), table="contract_people", mode="replace")


class TestSqlInputContract(DatabaseContract):
    operator_cls = SqlInput
    params = {"connection": "db", "query": "SELECT * FROM contract_people ORDER BY id"}
    bad_params = [
        ({"query": "SELECT 1"}, r"^node\.params\.connection: Connection: required$"),
        (
            {"connection": "db", "query": ""},
            r"^node\.params\.query: Query: must not be empty$",
        ),
        (
            {"connection": "db", "query": "SELECT :a + :b", "params": {"a": 1}},
            r"^node\.params\.params: Parameters: the query uses :b; give b a value here$",
        ),
        (
            {"connection": "db", "query": "SELECT :a", "params": {"a": 1, "z": 2}},
            r"^node\.params\.params: Parameters: z is not used by the query \(it has no :z\)$",
        ),
        (
            {"connection": "db", "query": "SELECT 1", "params": {"a b": 1}},
            r"^node\.params\.params\.a b\.\[key\]: Parameters, the name 'a b': must match the",
        ),
        (
            {"connection": "db", "query": "SELECT :a", "params": {"a": [1, 2]}},
            r"^node\.params\.params\.a: Parameters, a: must be text, a whole number, a number or",
        ),
    ]


class TestSqlOutputContract(DatabaseContract):
    operator_cls = SqlOutput
    params = {"connection": "db", "table": "contract_out", "mode": "replace"}
    inputs = {"in": people()}
    bad_params = [
        (
            {"connection": "db", "table": "t", "mode": "merge"},
            r"^node\.params\.mode: Mode: must be one of 'append', 'replace' or 'upsert'$",
        ),
        (
            {"connection": "db", "table": "t", "mode": "upsert"},
            r"^node\.params\.keys: Key columns: upsert needs the columns that identify a row; list",
        ),
        (
            {"connection": "db", "table": "t", "keys": ["id", "id"]},
            r"^node\.params\.keys: Key columns: a key column is listed twice$",
        ),
        (
            {"connection": "db", "table": "a.b.c"},
            r"^node\.params\.table: Table: must match the pattern",
        ),
        (
            {"connection": "db", "table": "t", "chunk_size": 0},
            r"^node\.params\.chunk_size: Rows per batch: must be at least 1$",
        ),
    ]
