"""Request bodies against a real daphne process, sent the way an attacker would: raw sockets.

A body over its address's limit is answered 413 before it is read (declared with
`Content-Length`) or as soon as it passes the limit (chunked), and the server's resident
memory (VmRSS from /proc) grows by less than 10 MiB over a 50 MiB body. An upload within the
limit is stored whole while the server's memory stays flat: its body goes from Twisted's
temporary file to Django's upload handler's in 64 KiB pieces.
"""

from __future__ import annotations

import hashlib
import re
import select
import socket
from collections.abc import Iterable, Iterator

import pytest

from pipewright.request_bodies import SMALL_LIMIT, body_limit
from tests.servers import DaphneServer, rss_bytes

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.server]
MIB = 2**20
PIECE = 64 * 1024
ANSWER_TIMEOUT_S = 20
"""Generous: the answer comes from the headers alone; this only bounds a broken server."""


def pieces(total: int, byte: bytes = b"a") -> Iterator[bytes]:
    """`total` bytes of `byte`, 64 KiB at a time."""
    for start in range(0, total, PIECE):
        yield byte * min(PIECE, total - start)


def chunked(parts: Iterable[bytes]) -> Iterator[bytes]:
    """`parts` in HTTP/1.1 chunked framing, then the last chunk."""
    for part in parts:
        yield b"%x\r\n%s\r\n" % (len(part), part)
    yield b"0\r\n\r\n"


def head(method: str, path: str, headers: dict[str, str]) -> bytes:
    lines = [
        f"{method} {path} HTTP/1.1",
        "Host: 127.0.0.1",
        *(f"{k}: {v}" for k, v in headers.items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def send(
    server: DaphneServer, request_head: bytes, body: Iterable[bytes]
) -> tuple[int | None, bytes]:
    """Send a request as fast as the server takes it, stopping once it answers or cuts us off;
    `(status, answer)`, status None when the connection was reset before any answer."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=ANSWER_TIMEOUT_S) as raw:
        raw.sendall(request_head)
        try:
            for part in body:
                if select.select([raw], [], [], 0)[0]:
                    break  # the server answered already
                raw.sendall(part)
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = b""
        try:
            while not complete(answer):
                received = raw.recv(65536)
                if not received:
                    break
                answer += received
        except (ConnectionResetError, TimeoutError):
            pass
    status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else None
    return status, answer


def complete(answer: bytes) -> bool:
    """Whether `answer` holds its head and the body its Content-Length announces (the server
    keeps the connection open after it: reading on would wait for the timeout)."""
    head, ended, body = answer.partition(b"\r\n\r\n")
    length = re.search(rb"(?im)^content-length:\s*(\d+)\s*$", head)
    return bool(ended and length and len(body) >= int(length[1]))


def login_form(total: int) -> Iterator[bytes]:
    """A sign-in form whose password field is `total` bytes long."""
    yield b"username=demo&password="
    yield from pieces(total)


def warm_up(server: DaphneServer) -> None:
    """The sign-in page and a refused small POST once, so that what they load lazily is in."""
    for _ in range(2):
        send(server, head("GET", "/accounts/login/", {}), [])
        form = b"username=demo&password=x"
        send(server, head("POST", "/accounts/login/", form_headers(len(form))), [form])


def form_headers(length: int) -> dict[str, str]:
    return {"Content-Type": "application/x-www-form-urlencoded", "Content-Length": str(length)}


@pytest.mark.parametrize(
    ("method", "path", "credentials", "limit"),
    [
        (b"POST", "/accounts/login/", False, SMALL_LIMIT),
        (b"POST", "/api/pipelines", False, SMALL_LIMIT),
        (b"POST", "/api/pipelines", True, 5 * MIB),
        (b"POST", "/admin/editor/pipeline/1/change/", True, 5 * MIB),
        (b"POST", "/api/workspaces/sales/files", True, 100 * MIB + 64 * 1024),
        (b"POST", "/api/workspaces/sales/files", False, SMALL_LIMIT),
        (b"DELETE", "/api/workspaces/sales/files", True, 5 * MIB),
        (b"POST", "/workspaces/sales/", True, SMALL_LIMIT),
    ],
    ids=["sign-in", "api-anonymous", "api", "admin", "upload", "upload-anonymous",
         "files-not-upload", "page"],
)  # fmt: skip
def test_each_address_has_its_body_limit(method, path, credentials, limit):
    assert body_limit(method, path, credentials).size == limit


def test_an_anonymous_50_mib_post_to_the_sign_in_page_grows_the_server_by_under_10_mib(
    start_server,
):
    [server] = start_server()
    warm_up(server)
    before = rss_bytes(server.process.pid)
    total = 50 * MIB
    status, answer = send(
        server, head("POST", "/accounts/login/", form_headers(total + 23)), login_form(total)
    )
    grown = rss_bytes(server.process.pid) - before
    assert grown < 10 * MIB, f"the server grew by {grown / MIB:.1f} MiB"
    assert status == 413, answer[:300]
    assert b"1 MiB" in answer


def test_an_anonymous_chunked_50_mib_post_is_cut_off_at_the_limit(start_server):
    [server] = start_server()
    warm_up(server)
    before = rss_bytes(server.process.pid)
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Transfer-Encoding": "chunked"}
    status, answer = send(
        server, head("POST", "/accounts/login/", headers), chunked(login_form(50 * MIB))
    )
    grown = rss_bytes(server.process.pid) - before
    assert grown < 10 * MIB, f"the server grew by {grown / MIB:.1f} MiB"
    assert status == 413, answer[:300]


def test_a_declared_body_over_the_limit_is_refused_before_it_is_sent(asgi_server, token):
    """Only the headers go out: the answer cannot wait for a body that never comes."""
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json",
               "Content-Length": str(6 * MIB)}  # fmt: skip
    status, answer = send(asgi_server, head("POST", "/api/pipelines", headers), [])
    assert status == 413, answer[:300]
    assert b'"too_large"' in answer and b"5 MiB" in answer


def test_a_body_within_the_limit_still_reaches_the_application(asgi_server, token):
    """A JSON body of about 3 MiB (many 64 KiB pieces) arrives whole: the API reads it and
    answers about its content, not about its framing."""
    document = b'{"name": "' + b"x" * (3 * MIB) + b'"}'
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json",
               "Content-Length": str(len(document))}  # fmt: skip
    status, answer = send(asgi_server, head("POST", "/api/pipelines", headers), [document])
    assert status in (400, 422), answer[:300]
    assert b"name" in answer


def upload_body(boundary: str, name: str, size: int) -> tuple[int, Iterator[bytes], str]:
    """A multipart upload of `size` bytes named `name`: its length, its parts, its SHA-256."""
    start = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    end = f"\r\n--{boundary}--\r\n".encode()
    digest = hashlib.sha256()
    for part in pieces(size, b"z"):
        digest.update(part)
    return len(start) + size + len(end), iter([start, *pieces(size, b"z"), end]), digest.hexdigest()


def test_a_60_mib_upload_is_stored_whole_and_the_server_stays_small(start_server, token):
    [server] = start_server()
    boundary = "pipewright-test-boundary"
    headers = {"Authorization": f"Bearer {token}",
               "Content-Type": f"multipart/form-data; boundary={boundary}"}  # fmt: skip
    length, body, _ = upload_body(boundary, "warm-up.bin", 4 * MIB)
    send(
        server,
        head("POST", "/api/workspaces/owner/files", {**headers, "Content-Length": str(length)}),
        body,
    )
    before = rss_bytes(server.process.pid)

    length, body, digest = upload_body(boundary, "big.bin", 60 * MIB)
    status, answer = send(
        server,
        head("POST", "/api/workspaces/owner/files", {**headers, "Content-Length": str(length)}),
        body,
    )
    grown = rss_bytes(server.process.pid) - before
    assert status == 201, answer[-300:]
    stored = server.data_root / "owner" / "big.bin"
    assert hashlib.sha256(stored.read_bytes()).hexdigest() == digest
    assert grown < 10 * MIB, f"the server grew by {grown / MIB:.1f} MiB"


def test_an_upload_over_the_upload_limit_is_refused_before_it_is_sent(start_server, token):
    [server] = start_server(env={"PIPEWRIGHT_MAX_UPLOAD_MB": "1"})
    headers = {"Authorization": f"Bearer {token}", "Content-Length": str(2 * MIB),
               "Content-Type": "multipart/form-data; boundary=x"}  # fmt: skip
    status, answer = send(server, head("POST", "/api/workspaces/owner/files", headers), [])
    assert status == 413, answer[:300]
