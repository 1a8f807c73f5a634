"""A workspace's database connections: what a URL may be, where it may go, and what the
runtime is given.

A URL is checked at entry (admin and API alike): no password in it (it has its own,
encrypted field); for SQLite only a relative file path inside the workspace's folder — no
absolute path, no `file:` URI, no options, no in-memory database; for a server, the rules of
`runtime.io.sql.connection_guard` (a host, allowed options, an address that is public, or listed in
`PIPEWRIGHT_CONNECTION_ALLOW` and saved by staff, and never the app's own database or Redis).
A name that does not resolve yet is accepted: the same guard travels with the connection to
every query (preview, check, schemas, runs, Dask runs) and is applied again each time it
connects, pinned to the address it checked, so a name that later resolves inward is refused.
Staff decide which non-public hosts are reached: a connection's `saved_by_staff` says whether
staff saved it last; a workspace admin's save of one that reaches a non-public address is
refused (403), and at run time only staff-saved connections may use the allow-list.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connections as django_databases
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from editor.errors import ActionError
from editor.models import Connection, Workspace
from runtime.errors import OperatorError
from runtime.io.addresses import AddressRefused, Unresolvable
from runtime.io.paths import FileArea
from runtime.io.sql.connection_guard import DEFAULT_PORTS, ConnectionGuard, Server, StaffOnly
from runtime.io.sql.connection_specs import ConnectionSpec
from runtime.io.sql.connections import probe

PASSWORD_OPTIONS = frozenset({"password", "passwd", "pwd", "sslpassword", "secret", "token"})
"""Query-string options that would carry a secret in the URL itself."""


class UrlRefused(ValueError):
    """A connection URL that may not be stored, with the reason in the user's words."""


def checked_url(text: str) -> URL:
    """The parsed URL, or `UrlRefused` saying what to change."""
    try:
        url = make_url(text)
    except (ArgumentError, ValueError):  # ValueError: a port that is no number
        raise UrlRefused(
            "not a SQLAlchemy URL; write it like postgresql+psycopg://user@host/db"
        ) from None
    if url.password is not None:
        raise UrlRefused("put the password in the password field, not in the URL")
    if PASSWORD_OPTIONS & {key.lower() for key in url.query}:
        raise UrlRefused("put the password in the password field, not in the URL's options")
    if url.get_backend_name() == "sqlite":
        _check_sqlite(url)
        return url
    try:
        guard().checked(url)
    except AddressRefused as error:
        raise UrlRefused(str(error)) from None
    return url


def guard(*, private_allowed: bool = False) -> ConnectionGuard:
    """The rules a workspace's connection is held to (`runtime.io.sql.connection_guard`)."""
    database = django_databases["default"].settings_dict
    backend = database["ENGINE"].rsplit(".", 1)[-1]
    refused, files = list(_redis_servers()), ()
    if backend == "sqlite3":
        files = (str(database["NAME"]),)
    elif backend in ("postgresql", "mysql"):
        own = "the application's own database"
        host = database["HOST"] or ""
        refused.append(
            Server(
                own,
                "" if host.startswith("/") else host,  # a socket's folder: this machine
                int(database["PORT"] or DEFAULT_PORTS[backend]),
                # a MySQL/MariaDB session reads every database of its server by name
                database["NAME"] if backend == "postgresql" else None,
            )
        )
    return ConnectionGuard(
        allow=tuple(settings.PIPEWRIGHT_CONNECTION_ALLOW),
        private_allowed=private_allowed,
        refused=tuple(refused),
        refused_files=files,
    )


def _redis_servers():
    for layer in getattr(settings, "CHANNEL_LAYERS", {}).values():
        for host in layer.get("CONFIG", {}).get("hosts", []):
            address = host.get("address", "") if isinstance(host, dict) else host
            if isinstance(address, str) and address.startswith(("redis://", "rediss://")):
                url = make_url(address)
                yield Server("the application's Redis server", url.host or "", url.port or 6379)


def check_destination(url: URL, *, staff: bool) -> None:
    """Where a server's URL points, as saved by staff or not: `UrlRefused`, or `StaffOnly`
    for a non-public address saved by someone else; a name that does not resolve passes
    (the guard checks it again at each connection)."""
    if url.get_backend_name() == "sqlite":
        return
    try:
        guard(private_allowed=staff).pinned(url)
    except Unresolvable:
        return
    except StaffOnly:
        raise
    except AddressRefused as error:
        raise UrlRefused(str(error)) from None


def _check_sqlite(url: URL) -> None:
    database = url.database or ""
    if url.query:
        raise UrlRefused("a SQLite URL takes no options; write sqlite:///file.db")
    if not database or database == ":memory:" or database.startswith("file:"):
        raise UrlRefused("a SQLite connection is a file in the workspace, e.g. sqlite:///shop.db")
    path = PurePosixPath(database)
    if Path(database).is_absolute() or path.is_absolute() or ".." in path.parts:
        raise UrlRefused(
            "a SQLite file must be inside the workspace's folder: write a relative path, "
            "e.g. sqlite:///shop.db"
        )


def runtime_connections(workspace: Workspace) -> dict[str, ConnectionSpec]:
    """The workspace's connections as the runtime takes them (passwords decrypted), each
    with the guard it connects through."""
    guards = {staff: guard(private_allowed=staff) for staff in (False, True)}
    return {
        connection.name: ConnectionSpec(
            url=connection.full_url(),
            read_only=connection.read_only,
            prefix=connection.prefix or None,
            guard=guards[connection.saved_by_staff],
        )
        for connection in Connection.objects.filter(workspace=workspace)
    }


def save_connection(
    workspace: Workspace,
    name: str,
    *,
    staff: bool,
    url: str,
    password: str | None = None,
    read_only: bool = True,
    prefix: str = "",
    description: str = "",
) -> Connection:
    """Create or change the workspace's connection `name` (a None password keeps the old);
    `staff`: whether the one saving it is staff."""
    try:
        check_destination(checked_url(url), staff=staff)
    except StaffOnly as error:
        raise ActionError(403, "staff_only", str(error), field="url") from None
    except UrlRefused as error:
        raise ActionError(400, "invalid_connection", str(error), field="url") from None
    connection = Connection.objects.filter(workspace=workspace, name=name).first()
    if password is None and connection is not None:
        _refuse_moving_the_password(connection, url)
    connection = connection or Connection(workspace=workspace, name=name)
    connection.url, connection.read_only = url, read_only
    connection.prefix, connection.description = prefix, description
    connection.saved_by_staff = staff
    if password is not None:
        connection.set_password(password)
    try:
        connection.full_clean(exclude=["workspace"], validate_unique=False)
    except ValidationError as error:
        field, messages = next(iter(error.message_dict.items()))
        raise ActionError(
            400, "invalid_connection", f"{field}: {messages[0]}", field=field
        ) from None
    connection.save()
    return connection


class _ProbeContext:
    """What `runtime.io.sql.connections.probe` needs: one connection, and the file area an
    SQLite file is found in."""

    def __init__(self, name: str, spec: ConnectionSpec, area: FileArea):
        self.connections = {name: spec}
        self.resolve_path = area.resolve


def test_connection(
    workspace: Workspace,
    area: FileArea,
    *,
    staff: bool,
    url: str,
    password: str | None = None,
    name: str | None = None,
) -> str:
    """Connect once as a run would (the same URL rules, guard and read-only session; a bounded
    wait) and run `SELECT 1`: what the database calls itself, or a 4xx `ActionError` saying
    why not, never with the password. A None `password` uses the stored one of `name`."""
    try:
        parsed = checked_url(url)
        check_destination(parsed, staff=staff)
    except StaffOnly as error:
        raise ActionError(403, "staff_only", str(error), field="url") from None
    except UrlRefused as error:
        raise ActionError(400, "invalid_connection", str(error), field="url") from None
    stored = Connection.objects.filter(workspace=workspace, name=name).first() if name else None
    if password is None and stored is not None and stored.has_password:
        _refuse_moving_the_password(stored, url)
        password = make_url(stored.full_url()).password
    if password:
        parsed = parsed.set(password=password)
    spec = ConnectionSpec(
        url=parsed.render_as_string(hide_password=False),
        read_only=True,
        guard=guard(private_allowed=staff),
    )
    called = name or "new"
    try:
        return probe(_ProbeContext(called, spec, area), called)
    except OperatorError as error:
        raise ActionError(400, "connection_failed", str(error), field="url") from None


def _refuse_moving_the_password(stored: Connection, url: str) -> None:
    """A stored password goes only where it was given for: the same database kind, server,
    port, user and database. Else 400 naming `password`: whoever points the connection
    elsewhere types it again (a workspace admin could otherwise send another's password to a
    server of theirs)."""
    if not stored.has_password:
        return
    before, after = make_url(stored.url), make_url(url)
    where = ("drivername", "host", "port", "username", "database")
    if any(getattr(before, part) != getattr(after, part) for part in where):
        raise ActionError(
            400,
            "password_required",
            "the connection now points elsewhere: enter its password again",
            field="password",
        )


def connection_json(connection: Connection) -> dict:
    """A connection as anyone in its workspace may see it: the URL without a password."""
    return {
        "name": connection.name,
        "url": connection.display_url(),
        "has_password": connection.has_password,
        "read_only": connection.read_only,
        "prefix": connection.prefix,
        "description": connection.description,
    }
