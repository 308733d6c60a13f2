"""Moving-window counts per client, in memory, with no thread of their own.

The in-memory storage of :class:`~exochess.web.limits.RateLimits` on one process.  The rate
limits first used the ``limits`` library's ``MemoryStorage``, which expires old entries in a
``threading.Timer``: a new thread started every 10 ms while anything is being counted, each
walking every key (its asyncio twin starts a task per hit instead, which walks every key through
a worker thread each: docs/decisions/0014-rate-limit-windows-in-memory.md measures both).
Under a flood of requests that was a few percent of a core and a steady stream of threads
taking the GIL from the event loop.  Here each key's window is pruned
when it is used, and the keys nobody used for a whole period are dropped by a sweep run at most
every :data:`SWEEP_S` seconds from :meth:`MovingWindows.hit`.  The limits themselves are still the
library's :class:`~limits.RateLimitItem` (``30/minute``), parsed by it.

Only the event loop calls it (no locking).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

from limits import RateLimitItem

SWEEP_S = 10.0
"""How often at most the keys are walked to drop those whose window is empty."""


class MovingWindows:
    """Per (kind, client) the times of the hits in the last period of the kind's limit."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._hits: dict[tuple[str, str], deque[float]] = {}
        self._periods: dict[str, float] = {}
        self._next_sweep = clock() + SWEEP_S

    def _window(self, kind: str, who: str, period: float, now: float) -> deque[float] | None:
        times = self._hits.get((kind, who))
        if times is not None:
            while times and times[0] <= now - period:
                times.popleft()
        return times

    def hit(self, item: RateLimitItem, kind: str, who: str) -> bool:
        """Count one hit of ``who`` if ``item`` allows it now; False (nothing counted) if not."""
        now = self._clock()
        period = float(item.get_expiry())
        self._periods[kind] = period
        if now >= self._next_sweep:
            self._sweep(now)
        times = self._window(kind, who, period, now)
        if times is None:
            times = self._hits[(kind, who)] = deque()
        if len(times) >= item.amount:
            return False
        times.append(now)
        return True

    def test(self, item: RateLimitItem, kind: str, who: str) -> bool:
        """Whether a hit of ``who`` would be allowed now (nothing is counted)."""
        times = self._window(kind, who, float(item.get_expiry()), self._clock())
        return times is None or len(times) < item.amount

    def retry_in(self, item: RateLimitItem, kind: str, who: str) -> float:
        """Seconds until a hit of ``who`` is allowed again (0 if it is now)."""
        now = self._clock()
        period = float(item.get_expiry())
        times = self._window(kind, who, period, now)
        if times is None or len(times) < item.amount:
            return 0.0
        # the window is full: one more fits when the hit that would make it overflow leaves it
        return times[len(times) - item.amount] + period - now

    def _sweep(self, now: float) -> None:
        self._next_sweep = now + SWEEP_S
        for kind, who in list(self._hits):
            times = self._window(kind, who, self._periods[kind], now)
            if not times:
                del self._hits[(kind, who)]

    def __len__(self) -> int:
        """Clients with a window kept (what the sweep bounds)."""
        return len(self._hits)
