"""Result-store writes on a thread of their own, behind the run.

Storing a result (a Parquet file and its record) costs a millisecond or more, most of it the
disk's; done by the node's worker, it delayed the node's status and every node below it, so
that a chain of 100 small nodes took 100 of those milliseconds longer to show. Here the
writes queue up for one thread, in order (a note of a key follows its file), while the
nodes run on. The frames waiting hold memory the run's budget does not count: past
`PENDING_BYTES` of them, the next write waits for room, so a large result is stored as it
was before, on the worker.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

PENDING_BYTES = 16 * 2**20
"""The (shallow) size of the frames that may wait to be stored at once."""

log = logging.getLogger(__name__)


class WriteBehind:
    """Writes run in the order given, on one thread; `finish` waits for all of them."""

    def __init__(self, pending_bytes: int = PENDING_BYTES):
        self._limit = pending_bytes
        self._pending = 0
        self._room = threading.Condition()
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="pipewright-store")

    def submit(self, write: Callable[[], None], size: int = 0) -> None:
        """Queue `write` (it handles its own errors), holding `size` bytes until it is done;
        waits while the writes queued hold too much (one write alone always goes)."""
        with self._room:
            self._room.wait_for(lambda: not self._pending or self._pending + size <= self._limit)
            self._pending += size
        self._thread.submit(self._run, write, size)

    def finish(self) -> None:
        """Wait until every write queued is done (the run ends only then: its next run may
        reuse what it stored)."""
        self._thread.shutdown(wait=True)

    def _run(self, write: Callable[[], None], size: int) -> None:
        try:
            write()
        except Exception:  # a bug: the result is not stored, the run goes on
            log.exception("a write to the result store failed")
        finally:
            with self._room:
                self._pending -= size
                self._room.notify_all()
