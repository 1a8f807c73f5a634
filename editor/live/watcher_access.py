"""Whether an open live-view websocket may still watch, and telling sockets to ask again.

A websocket is authorised when it connects, but it stays open for hours: its user may leave
the workspace, be deactivated, change their password or sign out meanwhile. Each of those
tells the user's open sockets at once (`tell_sockets_of`, after the change commits; over the
channel layer, so sockets on other web processes hear it too), and each socket asks again
(`may_still_watch`) and closes if the answer is no. Sign-out names the session it ended
(`session_digest`): the session is flushed just after the signal, so a socket could not yet
see it gone. Every socket also asks again at each heartbeat, for what no signal tells (a
session that expired, rows changed by hand in the database).
"""

from __future__ import annotations

import hashlib
from importlib import import_module
from types import SimpleNamespace

from django.conf import settings
from django.contrib.auth import get_user
from django.db import transaction

from editor.live import relay
from editor.workspaces.permissions import visible_pipelines


def may_still_watch(session_key: str | None, user_id: int, pipeline_id: int) -> bool:
    """Whether the session is still signed in as that user (active, same password), and the
    user may still see the pipeline."""
    if not session_key:
        return False
    session = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    user = get_user(SimpleNamespace(session=session))
    if not user.is_authenticated or user.pk != user_id:
        return False
    return visible_pipelines(user).filter(pk=pipeline_id).exists()


def session_digest(session_key: str | None) -> str:
    """What a sign-out message says of the session it ended (never the key itself)."""
    return hashlib.sha256((session_key or "").encode()).hexdigest()


def tell_sockets_of(user_id: int, message: dict) -> None:
    """Send `message` to every open live-view socket of the user once the change commits."""
    transaction.on_commit(lambda: relay.send_to_group(relay.user_group(user_id), message))
