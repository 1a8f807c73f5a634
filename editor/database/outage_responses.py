"""While the database cannot be reached, requests answer 503 with `Retry-After`, never 500.

A database that restarts, or SQLite locked for longer than its timeout, is not a bug of the
request: the client should try again shortly, and say so to its user. The API answers JSON
`{"code": "database_unavailable", ...}` (its own exception handler, `editor.api.errors`);
pages and everything else get a plain 503 page through `server_error`, the project's
`handler500`, which sees every error a view or middleware raised (a session saved, a token
looked up). A websocket whose handshake needs the database (its session read) is accepted and
closed with 4503, "try again later" (`WebsocketOutageGuard`), as the live view's consumer
closes one that cannot read its snapshot: the browser reconnects with backoff.
"""

from __future__ import annotations

import sys

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

from editor.database.outage import UNAVAILABLE
from editor.errors import error_json

RETRY_AFTER_S = 5
"""What `Retry-After` says: about how long a database restart takes."""
MESSAGE = "the database cannot be reached just now; try again in a few seconds"
TRY_AGAIN_LATER = 4503
"""The websocket close code a client reconnects after, with backoff (as HTTP 503; daphne
sends only 1000 and 3000-4999, not the standard 1013)."""
PAGE = f"<!doctype html><title>Try again shortly</title><h1>Try again shortly</h1><p>{MESSAGE}."


def unavailable(request: HttpRequest) -> HttpResponse:
    """The 503 answer to `request`: JSON under /api/, a plain page elsewhere."""
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse(
            error_json("database_unavailable", MESSAGE), status=503
        )
    else:
        response = HttpResponse(PAGE, status=503)
    response["Retry-After"] = str(RETRY_AFTER_S)
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """`handler500`: a 503 when the error is the database being away, else Django's 500."""
    if isinstance(sys.exc_info()[1], UNAVAILABLE):
        return unavailable(request)
    return defaults.server_error(request)


class WebsocketOutageGuard:
    """ASGI middleware before the websocket's authentication: when the database cannot be
    reached before the socket was accepted, accept it and close it with 4503 (daphne would
    refuse the handshake with an HTTP 500)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        seen: set[str] = set()

        async def receiving():
            message = await receive()
            seen.add(message["type"])
            return message

        async def sending(message):
            seen.add(message["type"])
            await send(message)

        try:
            return await self.app(scope, receiving, sending)
        except UNAVAILABLE:
            if scope["type"] != "websocket" or "websocket.accept" in seen:
                raise
            if "websocket.connect" not in seen:
                await receive()
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.close", "code": TRY_AGAIN_LATER})
