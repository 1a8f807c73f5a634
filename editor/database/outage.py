"""The database is away (restarted, cut off, SQLite locked for longer than its timeout): what
that looks like, and how a write that must not be lost waits for it to come back.

Only these errors are waited out: anything else a write raises is a bug, and trying it again
would fail the same way forever.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from django.db import InterfaceError, OperationalError, close_old_connections

UNAVAILABLE = (OperationalError, InterfaceError)
"""What Django raises while the database cannot be reached or stays locked."""
FIRST_DELAY_S = 0.1
MAX_DELAY_S = 5.0
"""The delays between tries: doubling from the first, up to the longest."""

log = logging.getLogger(__name__)
T = TypeVar("T")


class Backoff:
    """When to try the database again after a failed write: `after(ok)` reports a try."""

    def __init__(self):
        self.retry_at: float | None = None
        """While tries fail: the monotonic time of the next."""
        self._delay = FIRST_DELAY_S

    def after(self, ok: bool) -> None:
        if ok:
            self.retry_at, self._delay = None, FIRST_DELAY_S
        else:
            self.retry_at = time.monotonic() + self._delay
            self._delay = min(self._delay * 2, MAX_DELAY_S)

    def due(self) -> bool:
        return self.retry_at is None or time.monotonic() >= self.retry_at

    def wait(self) -> None:
        """Sleep until the next try is due."""
        if self.retry_at is not None:
            time.sleep(max(self.retry_at - time.monotonic(), 0.0))


def until_written(write: Callable[[], T]) -> T:
    """`write()`, tried again with backoff for as long as the database is away."""
    backoff = Backoff()
    while True:
        backoff.wait()
        close_old_connections()  # a connection the outage broke is replaced
        try:
            return write()
        except UNAVAILABLE as error:
            log.warning("waiting for the database: %s", error)
            backoff.after(False)
