"""How much a pipeline's notifications may send: at most `MAX_PER_PIPELINE` notifications a
pipeline, and `TESTS_PER_MINUTE` test messages a user, in this web process.

Each notification is a request to an outside server or e-mail to the workspace's members:
without a cap, one failed run sent 150 e-mails and 50 webhooks; without a rate, a script (or
a stuck key) could have the server flood either at the click of the test button. The rate is
a token bucket per user (`editor.live.inbound_limits.TokenBucket`).
"""

from __future__ import annotations

import threading

from editor.errors import ActionError
from editor.live.inbound_limits import TokenBucket

TESTS_PER_MINUTE = 6
MAX_PER_PIPELINE = 20

_buckets: dict[int, TokenBucket] = {}
_lock = threading.Lock()


def refuse_too_many_notifications(pipeline) -> None:
    """Raise 400 `too_many_notifications` when `pipeline` has `MAX_PER_PIPELINE` already (the
    caller holds the pipeline's row locked)."""
    if pipeline.notifications.count() >= MAX_PER_PIPELINE:
        raise ActionError(
            400, "too_many_notifications",
            f"a pipeline has at most {MAX_PER_PIPELINE} notifications; delete one to add "
            "another",
        )  # fmt: skip


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
