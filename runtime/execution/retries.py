"""Attempts that failed and will run again: each waits out its backoff, then is due.

The backoff doubles with every attempt (`retry_delay_s`, then twice that, ...). An attempt
waits in a heap ordered by the time it is due; the executor moves the due ones to the front
of its work when it looks at the clock, and drops them all when the run stops.

Belongs here: the backoff and the order retries come back in. Does not belong here: whether
an error is worth a retry (results.retryable) or how many tries a node gets (its plan), both
decided by the executor. Not thread-safe: the executor calls it under its lock.
"""

from __future__ import annotations

import heapq
import time
from collections import deque

from runtime.execution.attempts import Attempt


class Retries:
    """The attempts waiting out their backoff, and those due to run again."""

    def __init__(self, delay_s: float):
        self.delay_s = delay_s
        """The first retry's delay; each later one waits twice as long as the one before."""
        self._waiting: list[tuple[float, int, Attempt]] = []
        self._due: deque[Attempt] = deque()

    def delay_after(self, attempt: Attempt) -> float:
        """How long to wait before trying again after `attempt` failed."""
        return self.delay_s * 2 ** (attempt.number - 1)

    def wait(self, attempt: Attempt, delay: float) -> None:
        """Let `attempt` run again once `delay` seconds have passed."""
        heapq.heappush(self._waiting, (time.monotonic() + delay, id(attempt), attempt))

    def next_due_at(self) -> float | None:
        """When the first waiting attempt is due (`time.monotonic()`), or None."""
        return self._waiting[0][0] if self._waiting else None

    def promote_due(self) -> None:
        """Move the attempts whose backoff has passed to the ones due."""
        now = time.monotonic()
        while self._waiting and self._waiting[0][0] <= now:
            self._due.append(heapq.heappop(self._waiting)[2])

    @property
    def backing_off(self) -> bool:
        """Whether any attempt still waits out its backoff."""
        return bool(self._waiting)

    def due_count(self) -> int:
        """How many attempts are due to run again."""
        return len(self._due)

    def take_due(self) -> Attempt | None:
        """The attempt due first, or None."""
        return self._due.popleft() if self._due else None

    def drop_all(self) -> list[Attempt]:
        """Forget every retry (the run stops): the due ones first, then those waiting."""
        dropped = [*self._due, *(attempt for _, _, attempt in self._waiting)]
        self._due.clear()
        self._waiting.clear()
        return dropped
