"""What one websocket client may send: frames of at most 4 KiB, about 20 a second.

The live view's client only ever sends a small `snapshot_request` now and then, and each one
costs the server a database read; a client past these limits is misbehaving and is closed.
The rate is a token bucket: `RATE_PER_S` tokens a second, up to `BURST` saved up.
"""

from __future__ import annotations

import time

MAX_FRAME_BYTES = 4 * 2**10
RATE_PER_S = 20.0
BURST = 40
TOO_LARGE = 4413
TOO_MANY = 4429


class TokenBucket:
    """`take()` is True while the client stays within `rate` messages a second (`burst` ahead)."""

    def __init__(self, rate: float = RATE_PER_S, burst: int = BURST):
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.last = time.monotonic()

    def take(self) -> bool:
        """Spend one token if there is one."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def frame_size(message: dict) -> int:
    """The size in bytes of one received websocket message."""
    if message.get("bytes") is not None:
        return len(message["bytes"])
    return len((message.get("text") or "").encode())
