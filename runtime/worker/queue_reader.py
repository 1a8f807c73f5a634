"""Waiting for the items of a `distributed.Queue` without a deadline at the scheduler.

`Queue.get(timeout=…)` waits at the scheduler, and a wait that ends without an item raises
there: the scheduler logs "Exception while handling op queue_get" at ERROR with a traceback
every time, four times a second for each run waiting on its queue (2.8 MB an hour). So one
thread waits at the scheduler with no timeout and hands each item over a local queue, where a
wait with a timeout costs nothing; `close` puts a wake-up item in the queue, which ends it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections.abc import Callable

from distributed import Queue

WAKE = "\x00wake"
"""The item that ends the reading thread's wait: text no sender sends (JSON never starts so)."""
JOIN_S = 5.0
"""How long `close` waits for the reading thread to take its wake-up."""

log = logging.getLogger(__name__)


class EndingQueue:
    """A local queue with an end: once `end()` is put, every `get` after the items before it
    raises `error()` (as a socket's reads fail once its peer closed)."""

    def __init__(self, error: Callable[[], Exception]):
        self._items: queue.SimpleQueue = queue.SimpleQueue()
        self._error = error
        self._end = object()

    def put(self, item: object) -> None:
        self._items.put(item)

    def end(self) -> None:
        self._items.put(self._end)

    def get(self, timeout: float | None) -> object | None:
        """The next item, or None if none came within `timeout` seconds."""
        try:
            item = self._items.get(timeout=timeout)
        except queue.Empty:
            return None
        if item is self._end:
            self._items.put(item)  # and again at the next call
            raise self._error()
        return item

    def drain(self) -> list:
        """Every item waiting before the end."""
        items = []
        while True:
            try:
                item = self._items.get_nowait()
            except queue.Empty:
                return items
            if item is self._end:
                self._items.put(item)
                return items
            items.append(item)

    def qsize(self) -> int:
        return self._items.qsize()


class QueueReader:
    """Items of `source`, as they arrive: `get` one (with a timeout), `drain` all waiting."""

    def __init__(self, source: Queue):
        self._source = source
        self._items = EndingQueue(lambda: OSError("the Dask scheduler's queue cannot be read"))
        self._closing = False
        self._thread = threading.Thread(target=self._read, name="pipewright-queue", daemon=True)
        self._thread.start()

    def get(self, timeout: float) -> object | None:
        """The next item, or None if none came within `timeout` seconds; `OSError` once the
        queue cannot be read (its scheduler is gone) and every item read before was taken."""
        return self._items.get(timeout)

    def drain(self) -> list:
        """Every item that arrived and was not taken yet."""
        return self._items.drain()

    def waiting(self) -> int:
        """How many items arrived and were not taken yet."""
        return self._items.qsize()

    def close(self) -> None:
        """End the reading thread's wait (items it had not read stay in the queue)."""
        self._closing = True
        if self._thread.is_alive():
            with contextlib.suppress(Exception):  # the scheduler is gone: so is the wait
                self._source.put(WAKE)
            self._thread.join(JOIN_S)

    def _read(self) -> None:
        try:
            while True:
                item = self._source.get()
                if item == WAKE:
                    if self._closing:
                        return
                    continue
                self._items.put(item)
        except (Exception, asyncio.CancelledError):  # the client or the scheduler went away
            log.debug("a queue's reader stopped", exc_info=True)
        finally:
            self._items.end()
