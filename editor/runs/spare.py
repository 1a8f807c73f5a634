"""One process forked ahead and warmed up, for the next run or job to take.

A forked process's first work costs it more than its next: every page of the engine it
touches first is copied then (some 1,600 for a schema inference), and the fork itself takes
a while. A spare pays for both on a warm-up of its own (`runtime.worker.jobs.warm_up`)
before anybody waits for it: the check before a run, a preview, the run itself.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable

from runtime.worker.zygote import RunProcess


class SpareProcess:
    """At most one warmed-up process, made by `fork`."""

    def __init__(self, fork: Callable[[], RunProcess]):
        self._fork_one = fork
        self._lock = threading.Lock()
        self._process: RunProcess | None = None
        self._forking = False
        self._warmed = False
        """Whether the spare said it is warmed up (its one message before its work)."""

    def take(self) -> RunProcess:
        """The spare once it is warmed up, else a new process (a spare still warming up would
        make its taker wait for the rest, and stays for the next one); its memory counts
        from when it is taken (its warm-up's was not the taker's)."""
        with self._lock:
            process = self._process
            if process is not None and self._is_warm(process):
                self._process, self._warmed = None, False
                process.count_memory_from_now()
                return process
        return self._fork_one()

    def is_ready(self) -> bool:
        """Whether a warmed-up spare waits: the next taker gets it at once."""
        with self._lock:
            return self._process is not None and self._is_warm(self._process)

    def _is_warm(self, process: RunProcess) -> bool:
        return self._is_alive(process) and self._warmed

    def _is_alive(self, process: RunProcess) -> bool:
        """Whether the spare has not died (its socket's end tells at once, before the server
        that forked it has reaped it); notes its word that it is warm, if it came."""
        try:
            said = process.link.receive(0)
        except EOFError:
            return False
        self._warmed = self._warmed or said is not None
        return not process.wait(0)

    def refill(self) -> None:
        """Fork and warm up the next spare, in the background: after a job or a run, not
        during it, which it would slow down. Nothing to do while a spare is alive or being
        made (runs and jobs that end together make one)."""
        with self._lock:
            if self._forking or (self._process is not None and self._is_alive(self._process)):
                return
            self._forking = True
        threading.Thread(target=self._fork, name="pipewright-spare", daemon=True).start()

    def _fork(self) -> None:
        process = None
        try:
            process = self._fork_one()
            process.link.send("standby")
        except OSError:  # the next taker forks its own
            if process is not None:
                process.close()
            process = None
        with self._lock:
            self._forking = False
            replaced, self._process, self._warmed = self._process, process, False
        if replaced is not None:  # one that died: a spare is made only when none is alive
            replaced.send_signal(signal.SIGKILL)
            replaced.close()
