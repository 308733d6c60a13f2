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
refused at once with :class:`~exochess.web.domain.ServerBusy` (503), and one owner (account or
address) may hold at most ``per_owner`` of those places (429 beyond, issue 41: one address
looping over a huge position took all four).  A job over its time bound answers
:class:`~exochess.web.domain.PositionTooLarge` (422).  A thread cannot be stopped, so a thread
job past its bound runs to its end, counting against the queue bound until then.

The process pool is a ``ProcessPoolExecutor`` *without* ``max_tasks_per_child``: with it,
CPython 3.11's executor hangs for good once a worker retires while jobs wait (gh-115634; a
lone request hung over 15 s, and once no position was answered for 2.5 minutes).  The memory
of huge positions is returned by replacing the whole pool every :data:`TASKS_PER_PROCESS`
jobs instead (the old one finishes its jobs and its worker exits).  And a watchdog: a job still
unanswered :data:`WATCHDOG_GRACE_S` after its time bound (its worker stuck where the timer
cannot interrupt it, say in compiled code) has its pool's workers killed and the pool replaced.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import multiprocessing
import os
import signal
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from types import FrameType
from typing import Any, TypeVar

from exochess.web import metrics
from exochess.web.domain import N_, PositionTooLarge, ServerBusy, TooManyAttempts
from exochess.web.storage.threads import ThreadJob

T = TypeVar("T")

TASKS_PER_PROCESS = 50
"""Jobs a process pool serves before it is replaced (returns the memory of huge positions)."""
WATCHDOG_GRACE_S = 5.0
"""A process job unanswered this long past its time bound has its pool's workers killed."""
WORKER_START_S = 30.0
"""Added to the watchdog's bound: a new pool spawns its worker and imports the library first
(seconds on a loaded machine)."""
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
        self,
        name: str,
        workers: int,
        max_jobs: int,
        timeout_s: float,
        *,
        processes: bool = False,
        per_owner: int | None = None,
        tasks_per_pool: int | None = None,
    ) -> None:
        self.name = name
        self.workers = workers
        self.max_jobs = max_jobs
        self.per_owner = per_owner if per_owner is not None else max(1, max_jobs // 2)
        self.timeout_s = timeout_s
        self.processes = processes
        self.tasks_per_pool = tasks_per_pool if tasks_per_pool is not None else TASKS_PER_PROCESS
        self._pool = self._new()
        self._served = 0  # jobs handed to the current process pool
        self._jobs = 0  # running or waiting; changed only on the event loop
        self._owners: Counter[str] = Counter()
        self.replaced = 0
        """Process pools replaced by the watchdog (stuck or dead workers)."""

    def _new(self) -> Executor:
        if self.processes:
            ctx = multiprocessing.get_context("spawn")
            # no max_tasks_per_child: CPython gh-115634 (see the module docstring)
            return ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx, initializer=lower_priority)
        return ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix=self.name)

    @property
    def jobs(self) -> int:
        """Jobs running or queued (including thread jobs past their time bound, still running)."""
        return self._jobs

    async def run(self, what: str, fn: Callable[..., T], *args: Any, owner: str | None = None) -> T:
        """``fn(*args)`` in the pool; ``what`` names the work in the time-bound error; ``owner``
        (account or address) holds one of its :attr:`per_owner` places meanwhile.

        For a process pool, ``fn``, ``args`` and the result must be picklable (plain data).
        """
        if owner is not None and self._owners[owner] >= self.per_owner:
            retry = max(1, math.ceil(self.timeout_s))
            raise TooManyAttempts(
                N_(
                    "too many positions of yours are being worked out at once (at most {count}); "
                    "try again in {seconds} s"
                ),
                retry_after=retry,
                count=self.per_owner,
                seconds=retry,
            )
        if self._jobs >= self.max_jobs:
            raise ServerBusy(N_("the server is busy ({what}); try again in a moment"), what=self.name)
        self._jobs += 1
        if owner is not None:
            self._owners[owner] += 1
        try:
            if self.processes:
                return await self._in_process(what, fn, *args)
            return await self._in_thread(what, fn, *args)
        finally:
            if self.processes:
                self._jobs -= 1
            if owner is not None:
                self._owners[owner] -= 1
                if self._owners[owner] <= 0:
                    del self._owners[owner]

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

    def _replace(self, pool: Executor, *, kill: bool) -> None:
        """Put a new process pool in place of ``pool``; ``kill`` its workers (stuck or broken),
        else let them finish the jobs they have."""
        if self._pool is not pool:
            return  # replaced already (by another job that saw the same trouble)
        self._pool = self._new()
        self._served = 0
        if kill and isinstance(pool, ProcessPoolExecutor):
            self.replaced += 1
            # the executor has no public way to stop a running job: kill its processes
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                with contextlib.suppress(OSError, AttributeError):
                    process.kill()
        pool.shutdown(wait=False, cancel_futures=kill)

    async def _in_process(self, what: str, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        overtime = PositionTooLarge(f"position too large: {what} takes more than {self.timeout_s:g} s")
        for attempt in (1, 2):
            if self._served >= self.tasks_per_pool:
                self._replace(self._pool, kill=False)  # returns the memory of huge positions
            pool = self._pool
            self._served += 1
            try:
                # the worker stops itself at the time bound; a client leaving cancels only
                # the wait (a queued job is then dropped, a running one ends at its bound).
                # The watchdog's bound counts the wait for a worker too: max_jobs jobs at most
                # run before this one, each within its own bound
                rounds = math.ceil(self.max_jobs / max(1, self.workers))
                bound = rounds * (self.timeout_s + WATCHDOG_GRACE_S) + WORKER_START_S
                future = loop.run_in_executor(pool, _timed, self.timeout_s, what, fn, *args)
                return await asyncio.wait_for(future, bound)
            except TimeoutError:
                metrics.ERRORS.labels("cpu-watchdog").inc()
                self._replace(pool, kill=True)
                raise overtime from None
            except BrokenProcessPool:  # a worker died (killed, out of memory): rebuild once
                if attempt == 2:
                    raise
                self._replace(pool, kill=True)
        raise AssertionError("unreachable")

    async def warm(self) -> None:
        """Start a process pool's worker now rather than at the first request."""
        if self.processes:
            await self.run("starting", _warm)

    def close(self) -> None:
        """Drop waiting jobs; worker processes are waited for (each job ends at its time
        bound), so that none outlives the server."""
        self._pool.shutdown(wait=self.processes, cancel_futures=True)
