"""A query may not read or write the database server's files, nor run code there, however it
is quoted or commented (the real servers of this machine; see file_access.py).

MariaDB wrote `SELECT … INTO OUTFILE` inside a read-only session, and PostgreSQL's
`pg_read_binary_file` read any file its server may: a read-only session does not stop them.
"""

from __future__ import annotations

import os
import uuid

import pytest

from runtime.errors import ParamsError
from runtime.io.sql.connection_specs import ConnectionSpec
from tests.runtime.operators.sql_attacks import query

REFUSED = "reads or writes the database server's files or runs code there"


@pytest.fixture
def mariadb(mariadb_url, sql_data_root) -> ConnectionSpec:
    url, _ = mariadb_url
    return ConnectionSpec(url.render_as_string(hide_password=False), read_only=True)


@pytest.fixture
def postgresql(postgresql_url) -> ConnectionSpec:
    url, _ = postgresql_url
    return ConnectionSpec(url.render_as_string(hide_password=False), read_only=True)


@pytest.mark.parametrize(
    "template",
    [
        "SELECT 'owned' INTO OUTFILE '{target}'",
        "SELECT 'owned' INTO DUMPFILE '{target}'",
        "SELECT 'owned' /*!50000 INTO OUTFILE '{target}' */",
        "SELECT 'owned' into\n-- a comment between\noutfile '{target}'",
        "SELECT 'owned' INTO/**/OUTFILE '{target}'",
    ],
    ids=["outfile", "dumpfile", "executable-comment", "line-comment", "block-comment"],
)
def test_a_read_only_mariadb_query_writes_no_server_file(mariadb, sql_data_root, template):
    target = f"/tmp/pw_outfile_{uuid.uuid4().hex}.txt"
    with pytest.raises(ParamsError, match=REFUSED):
        query(mariadb, sql_data_root, template.format(target=target))
    assert not os.path.exists(target)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT LOAD_FILE('/etc/hostname') AS f",
        "SELECT `load_file`('/etc/hostname') AS f",
        "LOAD DATA INFILE '/etc/hostname' INTO TABLE t",
        "DO SLEEP(0)",
    ],
    ids=["load_file", "quoted", "load-data", "do"],
)
def test_a_mariadb_query_reads_no_server_file(mariadb, sql_data_root, sql):
    with pytest.raises(ParamsError, match=REFUSED):
        query(mariadb, sql_data_root, sql)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT pg_read_binary_file('PG_VERSION') AS f",
        "SELECT pg_catalog.pg_read_file('PG_VERSION') AS f",
        'SELECT "pg_read_file"(\'PG_VERSION\') AS f',
        "SELECT * FROM pg_ls_dir('.') AS f",
        "SELECT pg_stat_file('PG_VERSION') AS f",
        "SELECT lo_import('/etc/hostname') AS f",
        "SELECT lo_get(1) AS f",
        "SELECT query_to_xml('select pg_read_file(''PG_VERSION'')', true, false, '') AS f",
        "COPY (SELECT 1) TO PROGRAM 'id'",
        "DO $$ BEGIN RAISE EXCEPTION '%', pg_read_file('PG_VERSION'); END $$",
    ],
    ids=["pg_read_binary_file", "qualified", "quoted", "pg_ls_dir", "pg_stat_file", "lo_import",
         "lo_get", "query-text", "copy-program", "do-block"],
)  # fmt: skip
def test_a_postgresql_query_reads_no_server_file(postgresql, sql_data_root, sql):
    with pytest.raises(ParamsError, match=REFUSED):
        query(postgresql, sql_data_root, sql)


@pytest.mark.parametrize("kind", ["mariadb", "postgresql"])
def test_refused_names_inside_strings_and_comments_are_data(request, sql_data_root, kind):
    """A string literal or comment naming a refused function is no call of it."""
    spec = request.getfixturevalue(kind)
    sql = "SELECT 'into outfile' AS s, 'pg_read_file(x)' AS t -- lo_import('/x')\n"
    frame = query(spec, sql_data_root, sql)
    assert frame.to_dict("records") == [{"s": "into outfile", "t": "pg_read_file(x)"}]
