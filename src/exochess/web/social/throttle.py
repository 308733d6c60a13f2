"""Token buckets per key: how the lobby and the chat tell a person from a flood.

Each key (a client address, a seat of a game) may act ``burst`` times at once and then
``rate`` times a second.  Buckets are kept in memory; the full ones are forgotten when there
are many, so that a client inventing keys cannot grow the server's memory.
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
