"""A workspace's database connections: what a URL may be, and what the runtime is given.

A URL is checked once, at entry (admin and API alike): no password in it (it has its own,
encrypted field), and for SQLite only a relative file path inside the workspace's folder —
no absolute path, no `file:` URI, no options, no in-memory database.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from django.core.exceptions import ValidationError
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from editor.errors import ActionError
from editor.models import Connection, Workspace
from runtime.connection_specs import ConnectionSpec

PASSWORD_OPTIONS = frozenset({"password", "passwd", "pwd", "sslpassword", "secret", "token"})
"""Query-string options that would carry a secret in the URL itself."""


class UrlRefused(ValueError):
    """A connection URL that may not be stored, with the reason in the user's words."""


def checked_url(text: str) -> URL:
    """The parsed URL, or `UrlRefused` saying what to change."""
    try:
        url = make_url(text)
    except ArgumentError:
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
    """The workspace's connections as the runtime takes them (passwords decrypted)."""
    return {
        connection.name: ConnectionSpec(
            url=connection.full_url(),
            read_only=connection.read_only,
            prefix=connection.prefix or None,
        )
        for connection in Connection.objects.filter(workspace=workspace)
    }


def save_connection(
    workspace: Workspace,
    name: str,
    *,
    url: str,
    password: str | None = None,
    read_only: bool = True,
    prefix: str = "",
    description: str = "",
) -> Connection:
    """Create or change the workspace's connection `name` (a None password keeps the old)."""
    try:
        checked_url(url)
    except UrlRefused as error:
        raise ActionError(400, "invalid_connection", str(error), field="url") from None
    connection = Connection.objects.filter(workspace=workspace, name=name).first()
    connection = connection or Connection(workspace=workspace, name=name)
    connection.url, connection.read_only = url, read_only
    connection.prefix, connection.description = prefix, description
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
