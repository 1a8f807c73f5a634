"""A pool of worker threads that claim queued runs from the database and execute them.

One dispatcher claims runs (`queue.claim_next`) while the pool has a free slot and
starts a thread for each; a thread that ends its run frees its slot and wakes the
dispatcher. The web process's embedded pool works `until_idle`: its dispatcher ends when
nothing is claimable, and a new run (`wake`) starts it again. The pool of
`manage.py runworkers` also looks every `poll_s`, because the runs it executes are started
by other processes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from django.db import close_old_connections, connection

from editor.runs import queue

log = logging.getLogger(__name__)


class WorkerPool:
    """At most `size` runs executing at once, each by `execute(run_id)` on a thread of its own."""

    def __init__(
        self,
        size: int,
        execute: Callable[[int], object],
        *,
        until_idle: bool = False,
        poll_s: float = 0.25,
    ):
        self.size = size
        self._execute = execute
        self._until_idle = until_idle
        self._poll_s = poll_s
        self._lock = threading.Lock()
        self._woken = threading.Event()
        self._dispatcher: threading.Thread | None = None
        self._workers: set[threading.Thread] = set()
        self._claiming = True

    def wake(self) -> None:
        """Something may be claimable: look now."""
        with self._lock:
            self._woken.set()
            if self._dispatcher is None and self._claiming:
                self._dispatcher = threading.Thread(
                    target=self._dispatch, name="pipewright-dispatch", daemon=True
                )
                self._dispatcher.start()

    def stop_claiming(self) -> None:
        """Claim no more runs; those executing go on (`wait` for them)."""
        with self._lock:
            self._claiming = False
        self._woken.set()

    def executing(self) -> int:
        with self._lock:
            return len(self._workers)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the dispatcher to stop and every run to end; whether they did."""
        with self._lock:
            threads = [self._dispatcher, *self._workers]
        for thread in threads:
            if thread is not None:
                thread.join(timeout)
        return all(thread is None or not thread.is_alive() for thread in threads)

    def _dispatch(self) -> None:
        try:
            while self._claim_while_free():
                if self._until_idle and not self._woken.is_set():
                    break
                self._woken.wait(self._poll_s)
        finally:
            connection.close()
            with self._lock:
                self._dispatcher = None
                again = self._woken.is_set() and self._claiming
        if again:  # woken as it was ending: a run it did not see may be waiting
            self.wake()

    def _claim_while_free(self) -> bool:
        """Claim runs into free slots; False once the pool stops claiming."""
        self._woken.clear()
        while True:
            with self._lock:
                if not self._claiming:
                    return False
                if len(self._workers) >= self.size:
                    return True
            try:
                close_old_connections()
                run_id = queue.claim_next()
            except Exception:  # the database may be briefly away: look again later
                log.warning("could not claim a run", exc_info=True)
                return True
            if run_id is None:
                return True
            self._start(run_id)

    def _start(self, run_id: int) -> None:
        worker = threading.Thread(
            target=self._work, args=(run_id,), name=f"pipewright-run-{run_id}", daemon=True
        )
        with self._lock:
            self._workers.add(worker)
        worker.start()

    def _work(self, run_id: int) -> None:
        try:
            self._execute(run_id)
        finally:
            connection.close()
            with self._lock:
                self._workers.discard(threading.current_thread())
            self.wake()
