"""How many test messages one user may send: `TESTS_PER_MINUTE`, in this web process.

A test message is a request to an outside server or e-mail to the workspace's members, sent
at the click of a button; without a limit, a script (or a stuck key) could have the server
flood either. The rate is a token bucket per user (`editor.inbound_limits.TokenBucket`).
"""

from __future__ import annotations

import threading

from editor.errors import ActionError
from editor.inbound_limits import TokenBucket

TESTS_PER_MINUTE = 6

_buckets: dict[int, TokenBucket] = {}
_lock = threading.Lock()


def refuse_too_many_tests(user) -> None:
    """Raise 429 `too_many_tests` once `user` sent `TESTS_PER_MINUTE` test messages within a
    minute."""
    with _lock:
        bucket = _buckets.setdefault(user.pk, TokenBucket(TESTS_PER_MINUTE / 60, TESTS_PER_MINUTE))
        allowed = bucket.take()
    if not allowed:
        raise ActionError(
            429, "too_many_tests",
            f"at most {TESTS_PER_MINUTE} test messages a minute; wait a moment and try again",
        )  # fmt: skip


def forget() -> None:
    """Start every user's count again (tests)."""
    with _lock:
        _buckets.clear()
