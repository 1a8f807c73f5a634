"""The connection rules an admin sets: one engine per read-only flag and prefix, writes only
inside the prefix, and passwords never shown (see sql_attacks.py).
"""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from runtime.errors import OperatorError, ParamsError
from runtime.io.sql.connection_specs import ConnectionSpec, as_spec, hidden
from runtime.io.sql.connections import engine_for
from runtime.operators.sql import SqlInput
from tests.runtime.operators.contract import make_ctx
from tests.runtime.operators.sql_attacks import output, query, superuser


def test_engines_differ_by_read_only_flag_and_prefix(app):
    _, data_root = app
    specs = {
        "read": ConnectionSpec("sqlite:///copy.db"),
        "write": ConnectionSpec("sqlite:///copy.db", read_only=False),
        "staging": ConnectionSpec("sqlite:///copy.db", read_only=False, prefix="stg_"),
    }
    ctx = make_ctx(SqlInput(), {"connection": "read", "query": "SELECT 1"}, data_root,
                   connections=specs)  # fmt: skip
    engines = {engine_for(ctx, name, write=True) for name in specs}
    assert len(engines) == 3


# -- prefixes --------------------------------------------------------------------------------

PREFIXED = [
    ("stg_", "stg_orders", None),
    ("stg_", "orders", "may only write to tables named stg_...; name a table such as 'stg_orders'"),
    ("stg_", "main.stg_orders", "may only write to tables named stg_"),
    ("main.", "main.orders", None),
    ("main.", "orders", "may only write to schema 'main'; name a table such as 'main.orders'"),
    ("main.", "temp.orders", "may only write to schema 'main'"),
]  # fmt: skip


@pytest.mark.parametrize(("prefix", "table", "refusal"), PREFIXED)
def test_a_prefixed_connection_writes_only_inside_its_prefix(app, prefix, table, refusal):
    _, data_root = app
    spec = ConnectionSpec("sqlite:///copy.db", read_only=False, prefix=prefix)
    if refusal is None:
        output(spec, data_root, table, superuser())
        assert len(query(spec, data_root, f"SELECT * FROM {table}")) == 1
        return
    with pytest.raises(ParamsError, match="^table: connection 'db' " + refusal.replace(".", r"\.")):
        output(spec, data_root, table, superuser())


# -- passwords are never shown ----------------------------------------------------------------


def test_a_spec_shows_its_url_without_the_password():
    spec = ConnectionSpec("postgresql+psycopg://u:s3cret@db/x?sslpassword=k3y", read_only=False)
    assert "s3cret" not in repr(spec) and "k3y" not in repr(spec)
    assert repr(spec) == (
        "ConnectionSpec(url='postgresql+psycopg://u:***@db/x?sslpassword=***', "
        "read_only=False, prefix=None)"
    )
    assert as_spec("sqlite:///a.db") == ConnectionSpec("sqlite:///a.db", read_only=False)
    assert as_spec(spec) is spec


@pytest.mark.parametrize(
    "url",
    [
        "mysql+pymysql://root:s3cret@127.0.0.1:3306/test",  # wrong password: access denied
        "postgresql+psycopg://postgres@127.0.0.1:1/test?password=s3cret",  # refused connection
        "postgresql+nosuchdriver://u:s3cret@127.0.0.1/test",  # no driver
    ],
    ids=["mariadb-denied", "postgresql-query-password", "unknown-driver"],
)
def test_connection_failures_never_show_the_password(url, tmp_path):
    with pytest.raises(OperatorError) as raised:
        query(url, tmp_path, "SELECT 1 AS a")
    assert "s3cret" not in str(raised.value)
    assert hidden(sa.make_url(url)).count("s3cret") == 0
