"""An ordinary user's connection aimed at the server's insides, through the web app.

Every user administers a personal workspace, so anyone could create a connection to any
host: a PostgreSQL connection to `127.0.0.1:5432` read `django_session` of the app's own
database, and URL options ran SQL before the session became read-only. These tests make those
moves as that user would (the API, then a preview that runs the query), against the real
PostgreSQL and MariaDB of this machine, and check what is refused, with which words, and that
what staff allowed still works. Run them with `DATABASE_URL=postgres://…` too: the app's own
PostgreSQL database is then a target.
"""

from __future__ import annotations

import os
import socket

import pytest
from django.db import connection as django_connection

from editor.models import Connection
from editor.workspaces.membership import personal_workspace
from tests.editor.conftest import client_for, post_json, put_json

POSTGRES = "postgresql+psycopg://postgres@{host}:5432/{database}"
LOOPBACK_SPELLINGS = {
    "loopback": "127.0.0.1",
    "name-of-loopback": "localhost",
    "ipv6-loopback": "[::1]",
    "mapped-loopback": "[::ffff:127.0.0.1]",
    "nat64-loopback": "[64:ff9b::7f00:1]",
    "decimal": "2130706433",
    "octal": "0177.0.0.1",
    "this-machines-name": socket.gethostname(),
}


def app_database() -> str:
    """The database this test server itself uses (on SQLite: the `test` database stands in,
    which is also where `DATABASE_URL` would point a PostgreSQL test run at this server)."""
    if django_connection.vendor == "postgresql":
        return django_connection.settings_dict["NAME"]
    return "test"


def query_pipeline(client, query: str = "select 1 as one") -> int:
    document = {
        "format": "pipewright.pipeline", "version": 1, "name": "reach",
        "nodes": [{"id": "query", "operator": "sql_input",
                   "params": {"connection": "mine", "query": query}}],
        "edges": [],
    }  # fmt: skip
    return post_json(client, "/api/pipelines", document).json()["id"]


def preview(client, pipeline_id: int):
    return post_json(client, f"/api/pipelines/{pipeline_id}/preview", {"node": "query"})


@pytest.fixture
def allowed(settings):
    """What the tests' operator allows: this machine's loopback (the test servers live there)."""
    settings.PIPEWRIGHT_CONNECTION_ALLOW = ["127.0.0.0/8", "::1"]
    return settings


@pytest.mark.django_db
@pytest.mark.parametrize("host", LOOPBACK_SPELLINGS.values(), ids=LOOPBACK_SPELLINGS.keys())
def test_a_users_connection_to_this_servers_database_is_refused_in_every_spelling(
    client, data_root, settings, host
):
    settings.PIPEWRIGHT_CONNECTION_ALLOW = []
    url = POSTGRES.format(host=host, database=app_database())
    answer = put_json(client, "/api/workspaces/owner/connections/mine", {"url": url})
    assert answer.status_code == 400, answer.content
    assert answer.json()["field"] == "url"
    message = answer.json()["message"]  # on PostgreSQL: the app's own database, first
    assert "PIPEWRIGHT_CONNECTION_ALLOW" in message or "own database" in message
    assert not Connection.objects.exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_a_connection_saved_before_the_rules_is_refused_when_it_connects(
    client, owner, data_root, settings, host
):
    """Checked where it is used, not only where it is saved: a stored connection (made before
    this release, or by a name that resolved elsewhere then) reads nothing."""
    settings.PIPEWRIGHT_CONNECTION_ALLOW = []
    Connection.objects.create(
        workspace=personal_workspace(owner),
        name="mine",
        url=POSTGRES.format(host=host, database=app_database()),
    )
    pipeline_id = query_pipeline(client, "select session_key from django_session")
    answer = preview(client, pipeline_id)
    assert answer.status_code == 422, answer.content
    assert "connection 'mine' is refused" in answer.json()["message"]
    assert "rows" not in answer.json()
    schemas = client.get(f"/api/pipelines/{pipeline_id}/schemas").content.decode()
    assert "connection 'mine' is refused" in schemas
    refused = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {})  # a known problem
    assert refused.status_code == 422 and refused.json()["code"] == "pipeline_has_problems"
    assert "connection 'mine' is refused" in refused.json()["problems"][0]["message"]


@pytest.mark.django_db(transaction=True)
def test_only_staff_may_save_a_connection_to_an_allowed_private_host(
    client, owner, staff, data_root, allowed
):
    url = POSTGRES.format(host="127.0.0.1", database="test")
    answer = put_json(client, "/api/workspaces/owner/connections/mine", {"url": url})
    assert answer.status_code == 403, answer.content
    assert answer.json()["code"] == "staff_only"
    assert "only staff may save a connection" in answer.json()["message"]
    assert not Connection.objects.exists()
    boss = client_for(staff)
    answer = put_json(boss, "/api/workspaces/staff/connections/mine", {"url": url})
    assert answer.status_code == 200, answer.content
    answer = preview(boss, query_pipeline(boss))
    assert answer.status_code == 200, answer.content
    assert answer.json()["rows"] == [[1]]


@pytest.mark.django_db(transaction=True)
def test_a_workspace_admin_changing_a_staff_connection_loses_the_private_host(
    client, owner, data_root, allowed
):
    """Staff's approval covers what staff saved: the admin's own save of it is refused, and
    the connection never silently keeps reaching the private host under the admin's URL."""
    connection = Connection.objects.create(
        workspace=personal_workspace(owner),
        name="mine",
        url=POSTGRES.format(host="127.0.0.1", database="test"),
        saved_by_staff=True,
    )
    assert preview(client, query_pipeline(client)).status_code == 200
    body = {"url": POSTGRES.format(host="127.0.0.1", database="postgres")}
    answer = put_json(client, "/api/workspaces/owner/connections/mine", body)
    assert answer.status_code == 403 and answer.json()["code"] == "staff_only"
    connection.refresh_from_db()
    assert connection.saved_by_staff and connection.url.endswith("/test")


@pytest.mark.django_db
@pytest.mark.skipif(
    django_connection.vendor != "postgresql",
    reason="the app database is a PostgreSQL server only with DATABASE_URL=postgres://…",
)
@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]", "[::ffff:127.0.0.1]"])
def test_the_app_database_is_refused_even_to_staff_and_when_allowed(staff, data_root, allowed,
                                                                    host):  # fmt: skip
    url = POSTGRES.format(host=host, database=app_database())
    answer = put_json(client_for(staff), "/api/workspaces/staff/connections/app", {"url": url})
    assert answer.status_code == 400, answer.content
    assert "the application's own database; no connection may reach it" in answer.json()["message"]


@pytest.mark.django_db
def test_the_redis_server_is_refused_even_to_staff_and_when_allowed(staff, data_root, allowed):
    allowed.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [{"address": "redis://127.0.0.1:6379/0"}]},
        }
    }
    boss = client_for(staff)
    for host in ("127.0.0.1", "localhost", "[::1]"):
        url = f"mysql+pymysql://root@{host}:6379/x"
        answer = put_json(boss, "/api/workspaces/staff/connections/cache", {"url": url})
        assert answer.status_code == 400, answer.content
        assert "the application's Redis server" in answer.json()["message"], host


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "option"),
    [
        ("mysql+pymysql://root@127.0.0.1:3306/test?init_command=SET+GLOBAL+x%3D1",
         "init_command"),
        ("postgresql+psycopg://postgres@127.0.0.1/test?options=-c%20default_transaction_read_only%3Doff",
         "options"),
        ("mysql+pymysql://root@127.0.0.1:3306/test?local_infile=1", "local_infile"),
        ("mysql+pymysql://root@127.0.0.1:3306/test?read_default_file=/etc/passwd",
         "read_default_file"),
        ("mysql+pymysql://root@127.0.0.1:3306/test?client_flag=65536", "client_flag"),
        ("mysql+pymysql://root@db.example.com/test?unix_socket=/run/mysqld/mysqld.sock",
         "unix_socket"),
        ("postgresql+psycopg://postgres@db.example.com/test?host=/var/run/postgresql", "host"),
    ],
    ids=["init_command", "options", "local_infile", "read_default_file", "client_flag",
         "unix_socket", "host"],
)  # fmt: skip
def test_url_options_that_run_sql_or_go_elsewhere_are_refused_by_name(
    staff, data_root, allowed, url, option
):
    answer = put_json(client_for(staff), "/api/workspaces/staff/connections/x", {"url": url})
    assert answer.status_code == 400, answer.content
    assert f"the URL option '{option}' is not allowed" in answer.json()["message"]
    assert not Connection.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("read_timeout=abc", "'read_timeout' must be a whole number above 0"),
        ("write_timeout=-1", "'write_timeout' must be a whole number above 0"),
        ("charset=bogus", "'charset' must be one of utf8"),
        ("ssl_check_hostname=maybe", "'ssl_check_hostname' must be true or false"),
        ("read_timeout=1&read_timeout=2", "'read_timeout' is given more than once"),
        ("ssl_ca=/etc/hostname", "'ssl_ca' is not allowed"),  # a file of the server
    ],
)
def test_url_option_values_a_driver_would_choke_on_are_refused_naming_the_option(
    client, data_root, query, said
):
    url = f"mysql+pymysql://reader@8.8.8.8/shop?{query}"
    answer = put_json(client, "/api/workspaces/owner/connections/x", {"url": url})
    assert answer.status_code == 400, answer.content
    assert said in answer.json()["message"] and answer.json()["field"] == "url"
    tested = post_json(client, "/api/workspaces/owner/test-connection", {"url": url})
    assert tested.status_code == 400 and said in tested.json()["message"]


@pytest.mark.django_db
def test_a_postgresql_option_naming_a_server_file_is_refused(client, data_root):
    url = "postgresql+psycopg://reader@8.8.8.8/shop?sslmode=verify-ca&sslrootcert=/etc/hostname"
    answer = put_json(client, "/api/workspaces/owner/connections/x", {"url": url})
    assert answer.status_code == 400 and "'sslrootcert' is not allowed" in answer.json()["message"]


@pytest.mark.django_db(transaction=True)
def test_a_read_only_mariadb_connection_writes_no_file(client, owner, data_root, allowed):
    """The finding: `SELECT … INTO OUTFILE` wrote a file in a read-only session."""
    Connection.objects.create(
        workspace=personal_workspace(owner),
        name="mine",
        url="mysql+pymysql://root@127.0.0.1:3306/test",
        saved_by_staff=True,
    )
    target = f"/tmp/pw_h1_outfile_{socket.gethostname()}_{id(client)}.txt"
    for query in (
        f"SELECT 'owned' INTO OUTFILE '{target}'",
        f"SELECT 'owned' /*!50000 INTO DUMPFILE '{target}' */",
        "SELECT LOAD_FILE('/etc/hostname') AS f",
    ):
        answer = preview(client, query_pipeline(client, query))
        assert answer.status_code == 422, (query, answer.content)
        assert "reads or writes the database server's files" in answer.json()["message"]
    assert not os.path.exists(target)
    literal = preview(client, query_pipeline(client, "SELECT 'into outfile' AS s"))
    assert literal.json()["rows"] == [["into outfile"]]


@pytest.mark.django_db(transaction=True)
def test_a_postgresql_connection_reads_no_server_file(client, owner, data_root, allowed):
    """The finding: the local PostgreSQL's `pg_read_binary_file` read the whole db.sqlite3."""
    Connection.objects.create(
        workspace=personal_workspace(owner),
        name="mine",
        url=POSTGRES.format(host="127.0.0.1", database="test"),
        saved_by_staff=True,
    )
    app_file = django_connection.settings_dict["NAME"]
    for query in (
        f"SELECT pg_read_binary_file('{app_file}') AS f",
        "SELECT pg_catalog.pg_read_file('PG_VERSION') AS f",
        "SELECT * FROM pg_ls_dir('.') AS f",
    ):
        answer = preview(client, query_pipeline(client, query))
        assert answer.status_code == 422, (query, answer.content)
        assert "reads or writes the database server's files" in answer.json()["message"]


@pytest.mark.django_db
def test_staff_allow_a_listed_private_host_in_the_admin_and_nothing_else(
    admin_client, owner, settings
):
    body = {
        "workspace": personal_workspace(owner).pk,
        "name": "warehouse",
        "url": POSTGRES.format(host="127.0.0.1", database="test"),
        "password": "",
        "read_only": "on",
    }
    settings.PIPEWRIGHT_CONNECTION_ALLOW = []
    page = admin_client.post("/admin/editor/connection/add/", body)
    assert "PIPEWRIGHT_CONNECTION_ALLOW" in page.content.decode()
    assert not Connection.objects.exists()
    settings.PIPEWRIGHT_CONNECTION_ALLOW = ["127.0.0.1:5432"]
    page = admin_client.post("/admin/editor/connection/add/", body)
    assert page.status_code == 302, page.content.decode()[:2000]
    assert Connection.objects.get().saved_by_staff
