"""Posting a signed JSON message to a webhook, to addresses on the public internet only.

A webhook's host is resolved once per attempt and every address it resolves to is checked
(`runtime.io.addresses`, as database connections are): private, loopback, link-local, shared,
multicast, reserved and this server's own addresses are refused, unless
`PIPEWRIGHT_WEBHOOK_ALLOW` lists the host or a network holding the address. The request then
goes to that resolved address (the Host header and TLS name stay the host's), so a DNS answer
that changes between the check and the request cannot point it inside. Redirects are not
followed. The body is signed with HMAC-SHA256 under the webhook's secret:
`X-Pipewright-Signature: sha256=<hex>`; `X-Pipewright-Timestamp` repeats the body's `sent_at`.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import socket
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

from runtime.io import addresses
from runtime.io.addresses import AddressRefused

TIMEOUT_S = 5.0
RETRY_DELAYS_S = (1.0, 4.0)
"""Waits before the second and third attempts; a 5xx, a 429 or no answer is retried."""
USER_AGENT = "Pipewright-Webhook/1"


@dataclass(frozen=True)
class Delivery:
    """How posting went: delivered (a 2xx answer), the last status, or the error."""

    delivered: bool
    status: int | None = None
    error: str = ""
    attempts: int = 1

    def describe(self) -> str:
        if self.delivered:
            return f"delivered (HTTP {self.status})"
        if self.status is not None:
            return f"answered HTTP {self.status} after {self.attempts} attempt(s)"
        return f"{self.error} after {self.attempts} attempt(s)"


def checked_url(text: str) -> tuple[str, str, int]:
    """`(scheme, host, port)` of a webhook URL, or `AddressRefused`: http(s) only, no
    user or password in it, and no refused address written as a literal IP."""
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise AddressRefused(
            "not a URL; write it like https://hooks.example.com/pipewright"
        ) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AddressRefused("a webhook URL starts with https:// (or http://) and names a host")
    if parts.username is not None or parts.password is not None:
        raise AddressRefused("a webhook URL may not hold a user name or password")
    host = parts.hostname
    port = port or (443 if parts.scheme == "https" else 80)
    literal = addresses.literal(host)
    if literal is not None:
        _check_address(host, literal, port)
    return parts.scheme, host, port


def _check_address(host: str, address: addresses.Address, port: int) -> None:
    allowed = addresses.AllowList(tuple(settings.PIPEWRIGHT_WEBHOOK_ALLOW))
    addresses.check(
        host, address, port, allowed, setting="PIPEWRIGHT_WEBHOOK_ALLOW", what="webhooks"
    )


def resolved_address(host: str, port: int) -> str:
    """The one address the request will go to, after checking all the host has."""
    found = addresses.resolve(host, port)
    for address in found:
        _check_address(host, address, port)
    return str(found[0])


class _PinnedHTTP(http.client.HTTPConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float):
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self):
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float):
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self):
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def signature(secret: str, body: bytes) -> str:
    """The `X-Pipewright-Signature` value of `body`."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def post(url: str, payload: dict, secret: str, attempts: int = 3) -> Delivery:
    """POST `payload` (with `sent_at` added) as signed JSON, retried with backoff; never raises."""
    sent_at = str(int(time.time()))
    body = json.dumps({**payload, "sent_at": sent_at}, sort_keys=True).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-Pipewright-Timestamp": sent_at,
        "X-Pipewright-Signature": signature(secret, body),
    }
    outcome = Delivery(False, error="not attempted", attempts=0)
    for attempt in range(1, attempts + 1):
        outcome = _attempt(url, body, headers, attempt)
        if outcome.delivered or not _worth_retrying(outcome) or attempt == attempts:
            return outcome
        time.sleep(RETRY_DELAYS_S[min(attempt - 1, len(RETRY_DELAYS_S) - 1)])
    return outcome


def _worth_retrying(outcome: Delivery) -> bool:
    if outcome.error.startswith("refused"):
        return False
    return outcome.status is None or outcome.status >= 500 or outcome.status == 429


def _attempt(url: str, body: bytes, headers: dict, attempt: int) -> Delivery:
    try:
        scheme, host, port = checked_url(url)
        address = resolved_address(host, port)
    except AddressRefused as refused:
        return Delivery(False, error=f"refused: {refused}", attempts=attempt)
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    kind = _PinnedHTTPS if scheme == "https" else _PinnedHTTP
    connection = kind(host, port, address, TIMEOUT_S)
    try:
        connection.request("POST", target, body=body, headers=headers)
        status = connection.getresponse().status
    except (OSError, http.client.HTTPException) as error:
        return Delivery(False, error=f"no answer ({type(error).__name__})", attempts=attempt)
    finally:
        connection.close()
    return Delivery(200 <= status < 300, status=status, attempts=attempt)
