"""API authentication: the browser's session (with CSRF) or a bearer token."""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.decorators import login_required
from ninja.security import HttpBearer
from ninja.security import SessionAuth as NinjaSessionAuth

from editor.workspaces.tokens import user_for_token


class BearerTokenAuth(HttpBearer):
    """`Authorization: Bearer pw_…` with a token from `manage.py createtoken` or the admin."""

    def authenticate(self, request, token: str):
        user = user_for_token(token)
        if user is not None:
            request.user = user
        return user


class SessionAuth(NinjaSessionAuth):
    """The signed-in browser session; unsafe methods need the CSRF token."""

    def authenticate(self, request, key):
        user = request.user
        return user if user.is_authenticated and user.is_active else None


def signed_in_or_token(view):
    """For the schema and docs pages: a bearer token will do, else the browser signs in."""
    signed_in = login_required(view)

    @wraps(view)
    def checked(request, *args, **kwargs):
        if BearerTokenAuth()(request) is not None:
            return view(request, *args, **kwargs)
        return signed_in(request, *args, **kwargs)

    return checked
