"""Which network addresses Pipewright may reach for a user: public ones, or those an operator
listed. Shared by webhooks (`editor.notifications.webhooks`) and database connections
(`runtime.io.sql.connection_guard`), so both refuse the same addresses in every spelling.

An address is public when it is global unicast and not one of this server's own. Every other
address — loopback, private, link-local, shared (100.64/10), multicast, reserved, unspecified,
this server's interfaces — is refused unless an allow-list entry holds it. An IPv6 address
carrying an IPv4 one (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64
`64:ff9b::/96`, 6to4, Teredo) is judged by the IPv4 address it carries. Names are resolved by
the system resolver, which also reads the integer spellings (`2130706433`, `0177.0.0.1`); the
caller then connects to the address it checked, so a DNS answer that changes in between cannot
point it inside.

An allow-list entry is a host name, an address or a network (CIDR), optionally with a port:
`db.internal`, `10.0.0.0/8`, `10.1.2.3:5432`, `db.internal:5432`, `[fd00::1]:5432`.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass

import psutil

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")


class AddressRefused(ValueError):
    """An address that may not be reached, with the reason in the user's words."""


class Unresolvable(AddressRefused):
    """A host name the resolver does not know (yet): nothing was reached."""


def carried(address: Address) -> Address:
    """The IPv4 address an IPv6 one carries (mapped, compatible, NAT64, 6to4, Teredo), else it."""
    if isinstance(address, ipaddress.IPv4Address):
        return address
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _IPV4_COMPATIBLE or any(address in network for network in _NAT64):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    return address


def own_addresses() -> frozenset[Address]:
    """The addresses of this server's network interfaces (read on each call: they change)."""
    found = set()
    for entries in psutil.net_if_addrs().values():
        for entry in entries:
            if entry.family in (socket.AF_INET, socket.AF_INET6):
                found.add(carried(ipaddress.ip_address(entry.address.split("%")[0])))
    return frozenset(found)


def is_local(address: Address) -> bool:
    """Whether `address` reaches this server itself (loopback, unspecified, an own interface)."""
    address = carried(address)
    return address.is_loopback or address.is_unspecified or address in own_addresses()


def is_public(address: Address) -> bool:
    """Global unicast, and not this server's own."""
    address = carried(address)
    if not address.is_global or address.is_multicast or address.is_reserved:
        return False
    return not is_local(address)


@dataclass(frozen=True)
class AllowList:
    """The operator's list of non-public hosts, networks and ports that may be reached."""

    entries: tuple[str, ...] = ()

    def allows(self, host: str, address: Address, port: int) -> bool:
        return any(_entry_holds(entry, host, carried(address), port) for entry in self.entries)


def _entry_holds(entry: str, host: str, address: Address, port: int) -> bool:
    target, entry_port = _split_port(entry.strip().lower())
    if entry_port is not None and entry_port != port:
        return False
    try:
        network = ipaddress.ip_network(target, strict=False)
    except ValueError:
        return target == host.lower().rstrip(".")
    return address.version == network.version and address in network


def _split_port(entry: str) -> tuple[str, int | None]:
    if entry.startswith("["):
        target, _, rest = entry[1:].partition("]")
        return target, int(rest[1:]) if rest.startswith(":") and rest[1:].isdigit() else None
    target, colon, port = entry.rpartition(":")
    if colon and port.isdigit() and ":" not in target:
        return target, int(port)
    return entry, None


def literal(host: str) -> Address | None:
    """`host` as an IP address if it is written as one (`[::1]` included), else None."""
    try:
        return ipaddress.ip_address(host.strip("[]").split("%")[0])
    except ValueError:
        return None


def resolve(host: str, port: int) -> list[Address]:
    """Every address `host` resolves to (all are checked; the first is the one connected to)."""
    try:
        found = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise Unresolvable(f"the host {host} cannot be resolved") from None
    addresses = []
    for info in found:
        address = ipaddress.ip_address(info[4][0].split("%")[0])
        if address not in addresses:
            addresses.append(address)
    return addresses


def check(host: str, address: Address, port: int, allowed: AllowList, *, setting: str,
          what: str) -> None:  # fmt: skip
    """Nothing if `address` (of `host`) is public or allowed, else `AddressRefused` naming
    `setting`, the allow-list that would admit it, and `what` is limited ("webhooks")."""
    if is_public(address) or allowed.allows(host, address, port):
        return
    raise AddressRefused(
        f"{host} is a private, loopback, link-local, reserved or this server's own address "
        f"({carried(address)}); {what} go to public addresses unless {setting} lists it"
    )
