"""CPU-heavy request work (legal-move views, long replays, PGN) off the event loop, bounded.

The event loop only waits: the work runs in a small thread pool, so other games' moves and
pings are served meanwhile (a thread holding the GIL yields it every few milliseconds).  Two
bounds keep one client from occupying the pool: a queue bound (more waiting jobs than that
are refused at once with :class:`~exochess.web.domain.ServerBusy`, 503) and a time bound (a
job taking longer answers :class:`~exochess.web.domain.PositionTooLarge`, 422).  A Python
thread cannot be stopped, so a job past its time bound still runs to its end; it keeps
counting against the queue bound until then, which is what bounds the CPU an attacker gets.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from exochess.web.domain import PositionTooLarge, ServerBusy

T = TypeVar("T")


class CpuWork:
    """A bounded thread pool for one kind of request work."""

    def __init__(self, name: str, workers: int, max_jobs: int, timeout_s: float) -> None:
        self.name = name
        self.max_jobs = max_jobs
        self.timeout_s = timeout_s
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)
        self._jobs = 0  # running or waiting; changed only on the event loop

    @property
    def jobs(self) -> int:
        """Jobs running or queued (including those past their time bound, still running)."""
        return self._jobs

    async def run(self, what: str, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the pool; ``what`` names the work in the time-bound error."""
        if self._jobs >= self.max_jobs:
            raise ServerBusy(f"the server is busy ({self.name}); try again in a moment")
        loop = asyncio.get_running_loop()
        self._jobs += 1
        future = loop.run_in_executor(self._pool, fn, *args)
        future.add_done_callback(self._finished)
        try:
            # shield: a timeout or a client leaving must not cancel the bookkeeping above
            return await asyncio.wait_for(asyncio.shield(future), self.timeout_s)
        except TimeoutError:
            raise PositionTooLarge(
                f"position too large: {what} takes more than {self.timeout_s:g} s"
            ) from None

    def _finished(self, future: asyncio.Future[Any]) -> None:
        self._jobs -= 1
        if not future.cancelled():
            future.exception()  # retrieved, so a late failure is not logged as never retrieved

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
