"""The message limit of one websocket connection (:class:`MessageLimit`), on a token bucket.

A connection's limit concerns that connection only, so it lives with it, in memory, and needs
no sharing between servers (the limits shared across servers are :mod:`exochess.web.limits`'s).
A bucket allows ``burst`` messages at once and then ``rate`` a second.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable

MAX_KEYS = 10_000


class Throttle:
    """A token bucket per key (see the module docstring)."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._buckets: dict[Hashable, tuple[float, float]] = {}
        """key -> (tokens, time they were counted)."""

    def allow(self, key: Hashable) -> bool:
        """Take a token from ``key``'s bucket; False (and nothing taken) if it is empty."""
        now = self._clock()
        tokens, then = self._buckets.get(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) * self.rate)
        if tokens < 1.0:
            self._buckets[key] = (tokens, now)
            return False
        self._buckets[key] = (tokens - 1.0, now)
        if len(self._buckets) > MAX_KEYS:
            self._forget_full(now)
        return True

    def _forget_full(self, now: float) -> None:
        # a bucket that has refilled is the same as no bucket
        for key, (tokens, then) in list(self._buckets.items()):
            if tokens + (now - then) * self.rate >= self.burst:
                del self._buckets[key]


MESSAGES_PER_S = 8.0
"""Messages a websocket connection may send a second, sustained (a page pings every 5 s)."""
MESSAGES_BURST = 40
"""Messages a websocket connection may send at once."""
CLOSE_FLOOD = 1008
"""Close code (policy violation) of a connection that sent more messages than its limit."""


class MessageLimit:
    """The limit of one websocket connection's messages (issue 41: one socket flooding pings
    raised another game's ping p99 from 5.5 to 499 ms): ``burst`` at once, then ``rate`` a
    second; :meth:`check` says "ok", "slow" (over the limit: answer with an error) or, past
    ``strikes`` messages over it in a row, "close"."""

    def __init__(
        self,
        rate: float = MESSAGES_PER_S,
        burst: int = MESSAGES_BURST,
        strikes: int = 0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._bucket = Throttle(rate, burst, clock)
        self.strikes = strikes
        self._over = 0

    def check(self) -> str:
        """Count one message received (see the class docstring)."""
        if self._bucket.allow(None):
            self._over = 0
            return "ok"
        self._over += 1
        return "close" if self._over > self.strikes else "slow"

    def reason(self) -> str:
        """The close reason (at most 123 bytes)."""
        return f"too many messages (at most {self._bucket.rate:g} a second): connection closed"
