"""A bounded outgoing queue per websocket: a client that does not read is disconnected.

Under daphne an ASGI `send` never waits: the message goes straight into Twisted's write
buffer for the socket, which grows without limit when the client stops reading (every run
event of every pipeline it watches, for as long as it stays connected). This middleware
registers a push producer with the connection (Twisted's own flow control: it is paused
when the write buffer passes its high-water mark and resumed once it drained), holds the
messages sent meanwhile in a queue, and once that queue passes `MAX_QUEUED_BYTES` it closes
the socket with `TOO_SLOW`. Autobahn then drops the TCP connection when the client does not
answer the close within its close-handshake timeout (1 s), which frees the buffers, and the
consumer hears the disconnect as usual. A client that reads again before the limit gets
every queued message, in order. Watchers recover whatever they missed with a snapshot.

It must wrap the websocket application outermost (it needs daphne's own `send`: a partial
of `Server.handle_reply` over the connection's protocol). Under another server, or in the
Channels test communicator, it passes messages through unchanged.
"""

from __future__ import annotations

import asyncio
import functools
from collections import deque

TOO_SLOW = 4408
MAX_QUEUED_BYTES = 1 * 2**20


class BoundedWebsocketOutput:
    """ASGI middleware: websocket output beyond what the client reads is queued, then refused."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and (protocol := _daphne_protocol(send)) is not None:
            send = OutgoingQueue(send, protocol)
        return await self.app(scope, receive, send)


class OutgoingQueue:
    """One connection's `send`, paced by Twisted's flow control (an `IPushProducer`)."""

    def __init__(self, send, protocol, limit: int = MAX_QUEUED_BYTES):
        self.send = send
        self.limit = limit
        self.queue: deque[dict] = deque()
        self.queued_bytes = 0
        self.paused = self.closed = False
        self.flushing: asyncio.Future | None = None
        transport = protocol.transport
        if transport.producer is not None:  # daphne's HTTP channel, from before the upgrade
            transport.unregisterProducer()
        transport.registerProducer(self, True)

    async def __call__(self, message: dict) -> None:
        """Send now, queue while the client lags, or give up on a client that stopped reading."""
        if self.closed:
            return
        if message["type"] != "websocket.send":
            if message["type"] == "websocket.close":
                self.closed = True
                self.queue.clear()
            await self.send(message)
            return
        if not (self.paused or self.queue):
            await self.send(message)
            return
        self.queue.append(message)
        self.queued_bytes += _size(message)
        if self.queued_bytes > self.limit:
            self.queue.clear()
            self.closed = True
            await self.send({"type": "websocket.close", "code": TOO_SLOW})

    def pauseProducing(self) -> None:
        """Twisted: the socket's write buffer is full."""
        self.paused = True

    def resumeProducing(self) -> None:
        """Twisted: the write buffer drained; send what was queued meanwhile."""
        self.paused = False
        if self.queue and (self.flushing is None or self.flushing.done()):
            self.flushing = asyncio.ensure_future(self._flush())

    def stopProducing(self) -> None:
        """Twisted: the connection is gone."""
        self.closed = True
        self.queue.clear()

    async def _flush(self) -> None:
        while self.queue and not (self.paused or self.closed):
            message = self.queue.popleft()
            self.queued_bytes -= _size(message)
            await self.send(message)


def _daphne_protocol(send):
    """The Autobahn protocol behind daphne's `send`, or None under any other server."""
    if isinstance(send, functools.partial) and getattr(send.func, "__name__", "") == "handle_reply":
        protocol = send.args[0] if send.args else None
        if getattr(getattr(protocol, "transport", None), "registerProducer", None):
            return protocol
    return None


def _size(message: dict) -> int:
    return len(message.get("text") or "") + len(message.get("bytes") or b"")
