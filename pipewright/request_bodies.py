"""Request bodies under daphne: refused over their address's limit before they are read, and
handed to the application in small pieces from Twisted's file rather than all at once.

Left alone, daphne's Twisted request takes the whole body in (to a temporary file past 100 kB,
to memory below), then parses form bodies into memory a second time (Twisted's own
`request.args`, which daphne never uses), then puts every 8 KiB of it on the application's
queue at once: a 200 MiB POST to the sign-in page grew the server by 200 MiB, for good. Here:

- `body_limit` decides the most an address takes: a file upload `PIPEWRIGHT_MAX_UPLOAD_MB`,
  the API and the admin `DATA_UPLOAD_MAX_MEMORY_SIZE`, anything else 1 MiB, and a request that
  carries no credentials at all (no session cookie, no `Authorization`) 1 MiB wherever it goes.
- `LimitedRequest` answers 413 and closes the connection as soon as the declared
  `Content-Length`, or what a chunked body has sent so far, passes that limit; bytes past it
  are never stored. It skips Twisted's form parsing.
- `StreamedBody` (ASGI middleware, outermost for HTTP) gives the application the body 64 KiB
  at a time from Twisted's file, as the application asks for it.

`install()` makes daphne's server build its HTTP connections with `LimitedRequest`; it runs
when `pipewright.asgi` is imported, which every way of starting daphne does first. Under
another server both parts stand aside: give that server its own body limits.
"""

from __future__ import annotations

import functools
import io
import json
import re
from typing import NamedTuple
from urllib.parse import unquote

from daphne import server as daphne_server
from daphne.http_protocol import HTTPFactory, WebRequest
from django.conf import settings

MIB = 2**20
SMALL_LIMIT = 1 * MIB
"""Pages' forms, and every request without credentials (the sign-in form is a few hundred
bytes)."""
FORM_FIELDS_ROOM = 64 * 1024
"""An upload's multipart framing and its other fields, beyond the file itself."""
PIECE_BYTES = 64 * 1024
UPLOAD_PATH = re.compile(r"^/api/workspaces/[^/]+/files/?$")
LARGE_BODY_PREFIXES = ("/api/", "/admin/")


class Limit(NamedTuple):
    """The most bytes a request may send, and what the 413 says when it sends more."""

    size: int
    message: str


def body_limit(method: bytes, path: str, has_credentials: bool) -> Limit:
    """The most bytes a request to `path` may send (see the module's docstring)."""
    upload = settings.PIPEWRIGHT_MAX_UPLOAD_BYTES
    if method == b"POST" and UPLOAD_PATH.match(path) and has_credentials:
        # in the words the files API uses when it checks the declared size itself
        return Limit(
            upload + FORM_FIELDS_ROOM, f"the upload is larger than the {upload:,}-byte limit"
        )
    size = (
        settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if path.startswith(LARGE_BODY_PREFIXES)
        else SMALL_LIMIT
    )
    size = size if has_credentials else min(size, SMALL_LIMIT)
    shown = f"{size / MIB:g} MiB" if size >= MIB else f"{size:,} bytes"
    return Limit(size, f"the request body is larger than this address accepts ({shown})")


def too_large_response(limit: Limit) -> bytes:
    """The whole HTTP answer to a body over `limit`: 413 with the API's error shape."""
    body = json.dumps(
        {
            "code": "too_large",
            "message": limit.message,
            "node": None,
            "field": None,
            "limit_bytes": limit.size,
        }
    ).encode()
    head = (
        "HTTP/1.1 413 Request Entity Too Large\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


class LimitedRequest(WebRequest):
    """daphne's request, refusing a body over its limit and keeping it out of memory."""

    def __init__(self, channel, *args, **kwargs):
        super().__init__(channel, *args, parsePOSTFormSubmission=False, **kwargs)
        self.limit: Limit | None = None  # known once the headers are in (`gotLength`)
        self.received = 0
        self.refused = False
        self.body = None

    def gotLength(self, length):
        """Twisted: the headers are in (`length` is None for a chunked body)."""
        channel = self.channel
        path = unquote(channel._path.split(b"?", 1)[0].decode("latin-1"))  # as daphne does
        has_credentials = bool(
            self.requestHeaders.hasHeader(b"Authorization")
            or self.received_cookies.get(settings.SESSION_COOKIE_NAME.encode())
        )
        self.limit = body_limit(channel._command, path, has_credentials)
        if length is not None and length > self.limit.size:
            self.refuse()
            return
        super().gotLength(length)

    def handleContentChunk(self, data):
        """Twisted: more of the body arrived."""
        if self.refused:
            return
        self.received += len(data)
        if self.received > self.limit.size:
            self.refuse()
            return
        super().handleContentChunk(data)

    def refuse(self) -> None:
        """Answer 413 and close: nothing more of this body is stored or handed on."""
        self.refused = True
        self.content = io.BytesIO()
        self.requestHeaders.removeHeader(b"Expect")  # no "100 Continue" after the answer
        self.channel.transport.write(too_large_response(self.limit))
        self.channel.loseConnection()

    def process(self):
        """Hand the request to the application, the body staying in Twisted's file."""
        if self.refused:
            return None
        self.body, self.content = self.content, io.BytesIO()
        return super().process()


class LimitedHTTPFactory(HTTPFactory):
    """daphne's HTTP factory, building `LimitedRequest`s."""

    def buildProtocol(self, addr):
        protocol = super().buildProtocol(addr)
        protocol.requestFactory = LimitedRequest
        return protocol


def install() -> None:
    """Make daphne's server (built after the application is imported) use `LimitedRequest`."""
    daphne_server.HTTPFactory = LimitedHTTPFactory


class StreamedBody:
    """ASGI middleware: under `LimitedRequest`, the body is read from Twisted's file piece by
    piece as the application asks (daphne's own message carries an empty body: dropped)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        request = _limited_request(send)
        if scope["type"] == "http" and request is not None and request.body is not None:
            receive = BodyInPieces(request.body, receive)
        return await self.app(scope, receive, send)


def _limited_request(send) -> LimitedRequest | None:
    """The `LimitedRequest` behind daphne's `send` (a partial over it), or None."""
    if isinstance(send, functools.partial) and send.args:
        return send.args[0] if isinstance(send.args[0], LimitedRequest) else None
    return None


class BodyInPieces:
    """A `receive` that answers with `body` in pieces, then with daphne's later messages."""

    def __init__(self, body, receive):
        self.body = body
        self.receive = receive
        self.started = self.done = False

    async def __call__(self) -> dict:
        if not self.started:
            self.started = True
            first = await self.receive()  # daphne's, with the empty body
            if first["type"] != "http.request":
                self.done = True
                return first
        if self.done:
            return await self.receive()
        piece = self.body.read(PIECE_BYTES)
        more = len(piece) == PIECE_BYTES
        if not more:
            self.done = True
            self.body.close()
        return {"type": "http.request", "body": piece, "more_body": more}
