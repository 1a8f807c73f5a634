"""Where a workspace's database connection may go, checked each time it connects.

The editor gives every connection of a workspace a `ConnectionGuard` (the CLI's own connections
file has none: its connections are the operator's). Before an engine is made, the guard checks
the URL and returns it pinned to the address it checked:

- a PostgreSQL (psycopg) or MySQL/MariaDB (pymysql, mysqldb) server named by a host (no
  socket of this server); only the URL options of `ALLOWED_OPTIONS` — none that runs SQL
  (`init_command`, `options=-c …`), loads code or files (`local_infile`, plugins,
  `read_default_file`, `service`) or picks another host (`host`, `hostaddr`, `unix_socket`);
- every address the host resolves to public (`runtime.io.addresses`), or, for a connection that
  staff saved (`private_allowed`), listed in `PIPEWRIGHT_CONNECTION_ALLOW`;
- never a server of `refused` (the app's own database, its Redis), however it is spelled and
  even if allowed: the same port on a matching address, where every address of this server
  (loopback, its interfaces) counts as one;
- the connection then goes to the checked address: libpq's `hostaddr` (the host name still
  verifies TLS) or the address as pymysql's host, so a DNS answer that changes in between
  cannot turn it inward.

For SQLite, a file `refused_files` names (the app's own database) is refused.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from sqlalchemy.engine import URL

from runtime.io import addresses
from runtime.io.addresses import Address, AddressRefused

ALLOW_SETTING = "PIPEWRIGHT_CONNECTION_ALLOW"
DEFAULT_PORTS = {"postgresql": 5432, "mysql": 3306, "mariadb": 3306}
DRIVERS = {
    "postgresql": frozenset({"psycopg", "psycopg2"}),
    "mysql": frozenset({"pymysql", "mysqldb"}),
    "mariadb": frozenset({"pymysql", "mysqldb"}),
}
_WORD = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_WHOLE_SECONDS = re.compile(r"[1-9][0-9]{0,5}")
_OPTION_VALUES: dict[str, tuple[re.Pattern | frozenset, str]] = {
    "sslmode": (frozenset({"disable", "allow", "prefer", "require", "verify-ca",
                           "verify-full"}), "one of disable, allow, prefer, require, verify-ca, "
                                            "verify-full"),
    "target_session_attrs": (frozenset({"any", "read-write", "read-only", "primary", "standby",
                                        "prefer-standby"}), "a libpq session kind (any, …)"),
    "application_name": (_WORD, "a short name of letters, digits, _ . -"),
    "client_encoding": (_WORD, "an encoding's name, e.g. UTF8"),
    "charset": (frozenset({"utf8", "utf8mb3", "utf8mb4", "latin1", "ascii", "binary"}),
                "one of utf8, utf8mb3, utf8mb4, latin1, ascii, binary"),
    "keepalives": (frozenset({"0", "1"}), "0 or 1"),
    "ssl_check_hostname": (frozenset({"true", "false", "0", "1"}), "true or false"),
    **{name: (_WHOLE_SECONDS, "a whole number above 0")
       for name in ("connect_timeout", "read_timeout", "write_timeout", "keepalives_idle",
                    "keepalives_interval", "keepalives_count")},
}  # fmt: skip
"""What each allowed URL option may be set to (a driver given another value fails in ways
that are no clear message), and how to say so."""
_POSTGRES_OPTIONS = frozenset(
    {"sslmode", "connect_timeout", "application_name", "target_session_attrs",
     "client_encoding", "keepalives", "keepalives_idle", "keepalives_interval",
     "keepalives_count"}
)  # fmt: skip
_MYSQL_OPTIONS = frozenset(
    {"charset", "connect_timeout", "read_timeout", "write_timeout", "ssl_check_hostname"}
)  # fmt: skip
ALLOWED_OPTIONS = {"postgresql": _POSTGRES_OPTIONS, "mysql": _MYSQL_OPTIONS,
                   "mariadb": _MYSQL_OPTIONS}  # fmt: skip
"""The URL options a workspace's connection may set, per database: TLS, timeouts, names.
None names a file of the server (`sslrootcert`, `ssl_ca`): the driver would read it, and its
errors tell whether a path exists."""


class StaffOnly(AddressRefused):
    """A non-public address, for a connection that staff did not save."""


def _option_problem(name: str, value: str | tuple) -> str | None:
    """What is wrong with an allowed URL option's value (None: nothing)."""
    if isinstance(value, tuple):
        return "is given more than once"
    allowed, words = _OPTION_VALUES[name]
    fits = value.lower() in allowed if isinstance(allowed, frozenset) else allowed.fullmatch(value)
    return None if fits else f"must be {words}"


@dataclass(frozen=True)
class Server:
    """A server no connection may reach: `what` it is, where (`host` "": this machine), and
    which database of it (None: all of them)."""

    what: str
    host: str
    port: int
    database: str | None = None


@dataclass(frozen=True)
class ConnectionGuard:
    """What the editor allows a workspace's connection (travels with its spec, as JSON)."""

    allow: tuple[str, ...] = ()
    """`PIPEWRIGHT_CONNECTION_ALLOW`: non-public hosts, networks, ports that may be reached."""
    private_allowed: bool = False
    """Whether this connection may use `allow` (staff saved it)."""
    refused: tuple[Server, ...] = ()
    refused_files: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        # from JSON (a run's order): lists and dicts back into tuples and servers
        object.__setattr__(self, "allow", tuple(self.allow))
        object.__setattr__(self, "refused_files", tuple(self.refused_files))
        servers = tuple(s if isinstance(s, Server) else Server(**s) for s in self.refused)
        object.__setattr__(self, "refused", servers)

    @classmethod
    def of(cls, value: ConnectionGuard | Mapping | None) -> ConnectionGuard | None:
        return cls(**value) if isinstance(value, Mapping) else value

    def checked(self, url: URL) -> None:
        """Nothing if the URL's database, driver and options may be used, else AddressRefused."""
        backend = url.get_backend_name()
        if backend not in DRIVERS:
            raise AddressRefused(
                f"a {backend} database is not supported; Pipewright connects to PostgreSQL, "
                "MySQL/MariaDB and SQLite"
            )
        if url.get_driver_name() not in DRIVERS[backend]:
            drivers = " or ".join(sorted(DRIVERS[backend]))
            raise AddressRefused(f"use the {drivers} driver for {backend}")
        for option, value in url.query.items():
            if option.lower() not in ALLOWED_OPTIONS[backend]:
                allowed = ", ".join(sorted(ALLOWED_OPTIONS[backend]))
                raise AddressRefused(
                    f"the URL option '{option}' is not allowed; a {backend} connection may "
                    f"set {allowed}"
                )
            if problem := _option_problem(option.lower(), value):
                raise AddressRefused(f"the URL option '{option}' {problem}")
        if not url.host:
            raise AddressRefused(
                "name the database server's host, e.g. postgresql+psycopg://user@db.example.com"
                "/sales (a socket of this server is never used)"
            )

    def pinned(self, url: URL) -> URL:
        """`url` checked and pointed at the one address checked, else AddressRefused."""
        self.checked(url)
        backend = url.get_backend_name()
        port = url.port or DEFAULT_PORTS[backend]
        found = addresses.resolve(url.host, port)
        for address in found:
            self._check_address(url, address, port)
        target = str(found[0])
        if backend == "postgresql":
            return url.update_query_dict({"hostaddr": target})
        return url.set(host=target)

    def _check_address(self, url: URL, address: Address, port: int) -> None:
        for server in self.refused:
            matches = port == server.port and server.database in (None, url.database)
            if matches and _same_machine(address, server.host, port):
                raise AddressRefused(
                    f"{url.host}:{port} is {server.what}; no connection may reach it"
                )
        allowed = addresses.AllowList(self.allow)
        addresses.check(url.host, address, port, allowed, setting=ALLOW_SETTING, what="connections")
        if not self.private_allowed and not addresses.is_public(address):
            raise StaffOnly(
                f"{url.host} ({addresses.carried(address)}) is a non-public address that "
                f"{ALLOW_SETTING} lists; only staff may save a connection to it (ask staff to "
                "create or save this connection)"
            )

    def check_file(self, path: str) -> None:
        """Nothing unless the SQLite file `path` is one of `refused_files`."""
        for refused in self.refused_files:
            both = os.path.exists(refused) and os.path.exists(path)
            if both and os.path.samefile(refused, path):
                raise AddressRefused("this file is the application's own database")


def _same_machine(address: Address, host: str, port: int) -> bool:
    try:
        theirs = addresses.resolve(host, port) if host else []
    except addresses.Unresolvable:
        theirs = []
    if not host or any(addresses.is_local(each) for each in theirs):
        return addresses.is_local(address) or address in theirs
    return addresses.carried(address) in {addresses.carried(each) for each in theirs}
