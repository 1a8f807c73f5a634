"""What the runtime is told about a named connection, and how its URL may be shown.

Kept apart from `runtime.io.sql.connections` (engines and sessions) so that the node context can
name the type without importing the engine code.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import URL
from sqlalchemy.exc import ArgumentError

from runtime.io.sql.connection_guard import ConnectionGuard

_SECRET_KEY = re.compile(r"pass|secret|token|key", re.IGNORECASE)
"""URL query options whose value is masked wherever a URL is shown."""


@dataclass(frozen=True)
class ConnectionSpec:
    """A named connection as the runtime receives it."""

    url: str
    """Full SQLAlchemy URL, password included (never shown)."""
    read_only: bool = True
    """Enforced by the database itself."""
    prefix: str | None = None
    """Writes limited to this schema (`sales.`) or table prefix (`stg_`)."""
    changed: str = ""
    """When the connection was last changed (ISO 8601; "" if unknown): part of the key of a
    query's stored result, so that a connection pointed elsewhere never reuses it."""
    guard: ConnectionGuard | None = None
    """Where a workspace's connection may go (`runtime.io.sql.connection_guard`); None: anywhere
    (the CLI's own connections file)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "guard", ConnectionGuard.of(self.guard))  # from JSON

    def __repr__(self) -> str:
        try:
            url = hidden(sa.make_url(self.url))
        except ArgumentError:
            url = "<malformed URL>"
        return f"ConnectionSpec(url={url!r}, read_only={self.read_only}, prefix={self.prefix!r})"


Connections = Mapping[str, "ConnectionSpec | str"]
"""What every runtime entry point takes: a bare URL string is writable, with no prefix."""


def as_spec(value: ConnectionSpec | str) -> ConnectionSpec:
    """The spec of a connection given as a spec or as a bare (writable) URL."""
    if isinstance(value, ConnectionSpec):
        return value
    return ConnectionSpec(value, read_only=False)


def fingerprint(spec: ConnectionSpec) -> str:
    """What tells a connection apart in a stored result's key: its URL without secrets and
    when it last changed (not its name, which may be given to another database)."""
    try:
        shown = hidden(sa.make_url(spec.url))
    except ArgumentError:
        shown = "<malformed URL>"
    return f"{shown} changed {spec.changed}"


def hidden(url: URL) -> str:
    """The URL as it may be shown: its password, and query values that may be secrets, masked."""
    shown = url.set(query={}).render_as_string(hide_password=True)
    options = [
        f"{key}={'***' if _SECRET_KEY.search(key) else value}"
        for key, values in url.query.items()
        for value in ((values,) if isinstance(values, str) else values)
    ]
    return f"{shown}?{'&'.join(options)}" if options else shown


def secrets_of(url: URL) -> list[str]:
    """The password and the query values that may be secrets, for masking in messages."""
    values = [url.password] if url.password else []
    for key, value in url.query.items():
        if _SECRET_KEY.search(key):
            values += [value] if isinstance(value, str) else list(value)
    return [value for value in values if value]
