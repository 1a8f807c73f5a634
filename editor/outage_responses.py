"""While the database cannot be reached, requests answer 503 with `Retry-After`, never 500.

A database that restarts, or SQLite locked for longer than its timeout, is not a bug of the
request: the client should try again shortly, and say so to its user. The API answers JSON
`{"code": "database_unavailable", ...}` (its own exception handler, `editor.api.errors`);
pages and everything else get a plain 503 page through `server_error`, the project's
`handler500`, which sees every error a view or middleware raised (a session saved, a token
looked up).
"""

from __future__ import annotations

import sys

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

from editor.database_outage import UNAVAILABLE
from editor.errors import error_json

RETRY_AFTER_S = 5
"""What `Retry-After` says: about how long a database restart takes."""
MESSAGE = "the database cannot be reached just now; try again in a few seconds"
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
