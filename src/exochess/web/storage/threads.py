"""The threads that run the site's storage calls, moves of live games first.

SQLite has one writer, so a server on SQLite runs every storage call in one thread (on
PostgreSQL, several).  Calls wait their turn in a queue; a plain FIFO queue makes a player's
move wait behind whatever came before it: game creations (which read their row back), the
chat history every websocket join reads, the lookups of unknown game ids a client can send in
a loop.  Here a call marked ``urgent`` (storing a move) goes before every waiting call that is
not, and calls of the same urgency keep their order.

A call's result comes back to the event loop as a :class:`ThreadJob` (the CPU pools of
:mod:`exochess.web.compute.cpuwork` hand theirs back the same way).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Generic, TypeVar

from sqlalchemy.exc import OperationalError

from exochess.web import metrics
from exochess.web.domain import N_, StorageUnavailable

log = logging.getLogger("exochess.web")
T = TypeVar("T")

DB_THREADS = 8
"""Database threads of a server process on PostgreSQL (SQLite has one writer: one thread)."""


def thread_count(sqlite: bool, configured: int = DB_THREADS) -> int:
    """How many database threads a server runs: one on SQLite; on PostgreSQL ``configured``
    (the setting ``EXOCHESS_DB_THREADS``).  The connection pool keeps as many connections (see
    :class:`~exochess.web.storage.Storage`)."""
    return 1 if sqlite else max(1, configured)


class ThreadJob(Generic[T]):
    """``fn(*args)`` for a worker thread, handed back to the event loop in one step, and timed.

    ``loop.run_in_executor`` wraps a thread's future in an asyncio one, and a time bound on it
    (``wait_for`` over ``shield``) adds two futures more: each link is one more pass of the
    event loop before the waiting coroutine runs again, and under a burst of other work (a
    flood of websocket handshakes) every pass waits behind the whole burst.  Here the thread
    itself schedules the result onto the loop: the waiter is set in one pass, the coroutine
    runs in the next.  The times kept (``exochess_work_*_seconds``): how long the job waited
    for a thread, how long it ran, and how long the loop took to take its result up.
    """

    def __init__(self, pool: str, fn: Callable[..., T], *args: Any) -> None:
        self.pool = pool
        self.fn = fn
        self.args = args
        self.loop = asyncio.get_running_loop()
        self.waiter: asyncio.Future[T] = self.loop.create_future()
        self.queued = time.perf_counter()
        self.ended = 0.0
        self.on_end: Callable[[], None] | None = None
        """Called on the loop when the job is over, even if nobody waits for it any more."""

    def __call__(self) -> None:
        start = time.perf_counter()
        metrics.WORK_WAIT.labels(self.pool).observe(start - self.queued)
        result: Any = None
        error: BaseException | None = None
        try:
            result = self.fn(*self.args)
        except BaseException as exc:  # handed to the waiting coroutine, raised there
            error = exc
        self.ended = time.perf_counter()
        metrics.WORK_RUN.labels(self.pool).observe(self.ended - start)
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile (server stopping)
            self.loop.call_soon_threadsafe(self._deliver, result, error)

    def _deliver(self, result: Any, error: BaseException | None) -> None:
        if self.on_end is not None:
            self.on_end()
        if self.waiter.done():  # timed out or cancelled: nobody takes the result
            return
        if error is not None:
            self.waiter.set_exception(error)
        else:
            self.waiter.set_result(result)

    def dropped(self) -> None:
        """The executor refused the job (shut down): end it as if it had failed."""
        if self.on_end is not None:
            self.on_end()

    def never_run(self, future: Future[None]) -> None:
        """For the pool's future of this job: if the pool dropped the job unrun (a shutdown
        that cancels waiting jobs), end it and cancel the wait, instead of leaving the waiting
        coroutine to its time bound."""
        if future.cancelled():
            with contextlib.suppress(RuntimeError):
                self.loop.call_soon_threadsafe(self._cancel)

    def _cancel(self) -> None:
        if self.on_end is not None:
            self.on_end()
        self.waiter.cancel()

    async def result(self, timeout_s: float | None = None, on_timeout: BaseException | None = None) -> T:
        """Wait for the job; past ``timeout_s`` raise ``on_timeout`` (the job runs on to its
        end in its thread, it cannot be stopped).  Cancelling the wait leaves the job alone."""
        timer = None
        if timeout_s is not None:

            def overtime() -> None:
                if not self.waiter.done():
                    self.waiter.set_exception(on_timeout or TimeoutError())

            timer = self.loop.call_later(timeout_s, overtime)
        try:
            result = await self.waiter
        finally:
            if timer is not None:
                timer.cancel()
        if self.ended:
            metrics.WORK_RESUME.labels(self.pool).observe(time.perf_counter() - self.ended)
        return result


URGENT = 0
NORMAL = 1
_STOP = 2  # after every waiting call: shutting down finishes the queue first


class DbThreads:
    """``workers`` threads taking storage calls from one priority queue."""

    def __init__(self, workers: int, name: str = "db") -> None:
        self._queue: queue.PriorityQueue[tuple[int, int, Callable[[], object] | None]] = queue.PriorityQueue()
        self._order = itertools.count()  # ties keep the order of submission
        self._closed = False
        # daemon: a service that is never closed (a test's) does not keep the interpreter alive
        self._threads = [
            threading.Thread(target=self._work, name=f"{name}_{i}", daemon=True) for i in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    def submit(self, call: Callable[[], object], *, urgent: bool = False) -> None:
        """Queue ``call`` (it reports its own result); ``urgent`` ones first."""
        if self._closed:
            raise RuntimeError("the database threads are shut down")
        self._queue.put((URGENT if urgent else NORMAL, next(self._order), call))

    async def call(self, fn: Callable[..., T], *args: Any, urgent: bool = False) -> T:
        """``fn(*args)`` in a database thread (``urgent``: before the calls waiting that are
        not, for a move), awaited on the event loop; a busy or unreachable database (the
        transaction rolled back) becomes :class:`~exochess.web.domain.StorageUnavailable`."""
        job = ThreadJob("db", fn, *args)
        self.submit(job, urgent=urgent)
        try:
            return await job.result()
        except OperationalError as exc:
            log.warning("database unavailable: %s", exc.orig)
            raise StorageUnavailable(N_("the database is busy or unreachable; try again")) from exc

    def waiting(self) -> int:
        """Calls queued and not yet taken by a thread."""
        return self._queue.qsize()

    def _work(self) -> None:
        while True:
            _priority, _order, call = self._queue.get()
            if call is None:
                return
            call()

    def shutdown(self, wait: bool = True) -> None:
        """Run the calls already queued, then stop the threads (waiting for them with ``wait``)."""
        if self._closed:
            return
        self._closed = True
        for _ in self._threads:
            self._queue.put((_STOP, next(self._order), None))
        if wait:
            for thread in self._threads:
                if thread is not threading.current_thread():
                    thread.join()
