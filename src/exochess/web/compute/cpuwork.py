"""CPU-heavy request work (legal-move views, long replays, PGN) off the event loop, bounded.

The event loop only waits: the work runs in a small pool, so other games' moves and pings
are served meanwhile.  Two kinds of pool:

* threads, for work on live games' boards (a copy of the board is handed over, nothing is
  pickled, where a process would have to rebuild the board from its moves).  A thread shares
  the GIL with the event loop, and a live game's position, though its start is bounded
  (``MAX_START_MOVES``), can grow in play to tens of thousands of moves
  (``bench/grown_position.py``): the event loop keeps its turns because the interpreter
  switches threads every few milliseconds, and the compiled Interweave generator, which would
  never let it, yields the GIL every ``CHAINS_PER_GIL_RELEASE`` chains;
* processes (spawned), for positions a client sends (analysis board, a new game's FEN):
  those can be made as large as an attacker likes, and a separate process keeps their CPU
  and memory away from the server's interpreter; the worker runs at a lower scheduling
  priority, so that on a busy machine the live games come first.  There the time bound is
  enforced inside the worker (a ``SIGALRM`` timer interrupts the work), so an oversized job
  really stops.

Both bound the queue: with more jobs running or waiting than ``max_jobs``, a new one is
refused at once with :class:`~exochess.web.domain.ServerBusy` (503).  A job over its time
bound answers :class:`~exochess.web.domain.PositionTooLarge` (422).  A thread cannot be
stopped, so a thread job past its bound runs to its end, counting against the queue bound
until then.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from types import FrameType
from typing import Any, TypeVar

from exochess.web.domain import N_, PositionTooLarge, ServerBusy
from exochess.web.storage.threads import ThreadJob

T = TypeVar("T")

TASKS_PER_PROCESS = 50
"""Jobs a worker process serves before it is replaced (returns the memory of huge positions)."""
WORKER_NICENESS = 10
"""How much lower a worker process's scheduling priority is than the server's: on a busy
machine the operating system then serves the event loop (live games) first."""


def lower_priority() -> None:
    """Lower the calling process's scheduling priority by :data:`WORKER_NICENESS` (for worker
    processes: the engine's and the free positions'), so that on a busy machine the operating
    system serves the event loop, which answers every live game, first."""
    with contextlib.suppress(OSError):  # if not permitted, the worker keeps the server's priority
        os.nice(WORKER_NICENESS)


class _Overtime(Exception):
    """Raised inside a worker process by its timer."""


def _on_alarm(_signum: int, _frame: FrameType | None) -> None:
    raise _Overtime


def _timed(seconds: float, what: str, fn: Callable[..., T], *args: Any) -> T:
    """Run ``fn(*args)`` in a worker process, interrupted after ``seconds``."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn(*args)
    except _Overtime:
        raise PositionTooLarge(f"position too large: {what} takes more than {seconds:g} s") from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _warm() -> int:
    return 0


class CpuWork:
    """A bounded pool (threads or processes) for one kind of request work."""

    def __init__(
        self, name: str, workers: int, max_jobs: int, timeout_s: float, *, processes: bool = False
    ) -> None:
        self.name = name
        self.workers = workers
        self.max_jobs = max_jobs
        self.timeout_s = timeout_s
        self.processes = processes
        self._pool = self._new()
        self._jobs = 0  # running or waiting; changed only on the event loop

    def _new(self) -> Executor:
        if self.processes:
            ctx = multiprocessing.get_context("spawn")
            return ProcessPoolExecutor(
                max_workers=self.workers, mp_context=ctx, max_tasks_per_child=TASKS_PER_PROCESS,
                initializer=lower_priority,
            )
        return ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix=self.name)

    @property
    def jobs(self) -> int:
        """Jobs running or queued (including thread jobs past their time bound, still running)."""
        return self._jobs

    async def run(self, what: str, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the pool; ``what`` names the work in the time-bound error.

        For a process pool, ``fn``, ``args`` and the result must be picklable (plain data).
        """
        if self._jobs >= self.max_jobs:
            raise ServerBusy(N_("the server is busy ({what}); try again in a moment"), what=self.name)
        self._jobs += 1
        try:
            if self.processes:
                return await self._in_process(what, fn, *args)
            return await self._in_thread(what, fn, *args)
        finally:
            if self.processes:
                self._jobs -= 1

    async def _in_thread(self, what: str, fn: Callable[..., T], *args: Any) -> T:
        job = ThreadJob(self.name, fn, *args)
        job.on_end = self._thread_finished  # a timeout or a client leaving keeps this count
        try:
            self._pool.submit(job).add_done_callback(job.never_run)
        except RuntimeError:  # the pool is shut down (server stopping)
            job.dropped()
            raise
        overtime = PositionTooLarge(f"position too large: {what} takes more than {self.timeout_s:g} s")
        return await job.result(self.timeout_s, overtime)

    def _thread_finished(self) -> None:
        self._jobs -= 1

    async def _in_process(self, what: str, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            pool = self._pool
            try:
                # the worker stops itself at the time bound; a client leaving cancels only
                # the wait (a queued job is then dropped, a running one ends at its bound)
                return await loop.run_in_executor(pool, _timed, self.timeout_s, what, fn, *args)
            except BrokenProcessPool:  # a worker died (killed, out of memory): rebuild once
                if attempt == 2:
                    raise
                if self._pool is pool:
                    pool.shutdown(wait=False, cancel_futures=True)
                    self._pool = self._new()
        raise AssertionError("unreachable")

    async def warm(self) -> None:
        """Start a process pool's worker now rather than at the first request."""
        if self.processes:
            await self.run("starting", _warm)

    def close(self) -> None:
        """Drop waiting jobs; worker processes are waited for (each job ends at its time
        bound), so that none outlives the server."""
        self._pool.shutdown(wait=self.processes, cancel_futures=True)
