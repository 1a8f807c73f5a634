"""A run's conversation with its supervisor across a Dask cluster: the messages of `wire.Link`,
as JSON text through two `distributed.Queue`s, which the cluster's scheduler holds.

Text both ways, never pickle: what a worker puts in a queue reaches the supervisor (the web
server) as a string it parses as JSON. The supervisor's messages travel the same way, the run's
order among them, passwords included; never as a task's argument, which task reprs, the
dashboard and worker logs show.

A queue has no end the other side can see, as a socket has. So `close` puts an `END` frame, and
an end waiting for frames asks `peer_alive` when none came for `WAIT_S`: the supervisor asks
the scheduler whether the task still executes on its worker, the run whether it heard the
supervisor's `BEAT`s lately. Once the other end is gone, `receive` says EOFError after what
arrived was read, as a socket's does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from distributed import Client, Queue

from runtime.worker.queue_reader import EndingQueue, QueueReader

END, BEAT = "end", "beat"
"""The link's own frames; a message is a JSON object, never one of these."""
WAIT_S = 0.25
"""How long one read of the queue waits for a frame before the other end's life is asked."""

log = logging.getLogger(__name__)


class QueueLink:
    """One end of a run's link over a Dask cluster: `send` may be called from any thread,
    `receive` from one. `peer_alive(silent_s)` says whether the other end is still there,
    after `silent_s` seconds without a frame from it; `beat_s`: send a `BEAT` that often."""

    def __init__(
        self,
        client: Client,
        *,
        inbox: str,
        outbox: str,
        peer_alive: Callable[[float], bool],
        beat_s: float | None = None,
    ):
        self._inbox = Queue(inbox, client=client)
        self._outbox = Queue(outbox, client=client)
        self._frames = QueueReader(self._inbox)
        self._peer_alive = peer_alive
        self._arrived = EndingQueue(lambda: EOFError("the other end of the link is gone"))
        self._sending = threading.Lock()
        self._closed = threading.Event()
        threading.Thread(target=self._read, name="pipewright-link", daemon=True).start()
        if beat_s is not None:
            threading.Thread(
                target=self._beat, args=(beat_s,), name="pipewright-beat", daemon=True
            ).start()

    def send(self, kind: str, **fields: Any) -> None:
        """Send one message; `OSError` when the link is closed or the scheduler is gone."""
        self._put(json.dumps({"kind": kind, **fields}, default=str))

    def receive(self, timeout: float | None = None) -> dict | None:
        """The next message, or None if none came within `timeout` seconds; `EOFError` once
        the other end is gone and everything it sent was read."""
        return self._arrived.get(timeout)

    def close(self, *, take_back: bool = False) -> None:
        """Tell the other end the link ended, and let go of the queues. `take_back`: first
        take out what the other end did not read (the supervisor's end does: its run's order
        holds passwords, which must not stay in the scheduler's memory)."""
        with self._sending:
            if self._closed.is_set():
                return
            self._closed.set()
            with contextlib.suppress(Exception):  # the scheduler is gone: so is all it held
                if take_back:
                    self._outbox.get(batch=True)
                self._outbox.put(END)
        self._arrived.end()
        self._frames.close()
        for link_queue in (self._inbox, self._outbox):
            with contextlib.suppress(Exception):
                link_queue.close()

    def _put(self, frame: str) -> None:
        with self._sending:
            if self._closed.is_set():
                raise OSError("the link is closed")
            try:
                self._outbox.put(frame)
            except Exception as error:
                raise OSError(f"the Dask scheduler did not take a message: {error}") from error

    def _read(self) -> None:
        heard = time.monotonic()
        try:
            while not self._closed.is_set():
                frame = self._frames.get(WAIT_S)
                if frame is not None:
                    frames = [frame]
                elif self._peer_alive(time.monotonic() - heard):
                    continue
                else:
                    frames = [*self._rest(), END]
                heard = time.monotonic()
                for frame in frames:
                    if frame == END:
                        return
                    if frame != BEAT:
                        self._arrived.put(json.loads(frame))
        except (Exception, asyncio.CancelledError):  # the client or the scheduler went away
            log.debug("a run's link stopped reading", exc_info=True)
        finally:
            self._arrived.end()

    def _rest(self) -> list:
        """What the gone peer sent before it went, including frames still at the scheduler or
        on their way here: the reader's wake-up goes in behind them, so it takes them all
        before it stops (a slow scheduler delivers a finished run's last frames after its
        task is done)."""
        self._frames.close()
        return self._frames.drain()

    def _beat(self, every_s: float) -> None:
        while not self._closed.wait(every_s):
            try:
                self._put(BEAT)
            except OSError:
                return
