"""The threads that run the site's storage calls, moves of live games first.

SQLite has one writer, so a server on SQLite runs every storage call in one thread (on
PostgreSQL, several).  Calls wait their turn in a queue; a plain FIFO queue makes a player's
move wait behind whatever came before it: game creations (which read their row back), the
chat history every websocket join reads, the lookups of unknown game ids a client can send in
a loop.  Here a call marked ``urgent`` (storing a move) goes before every waiting call that is
not, and calls of the same urgency keep their order.
"""

from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Callable

DB_THREADS = 8
"""Database threads of a server process on PostgreSQL (SQLite has one writer: one thread)."""


def thread_count(sqlite: bool, configured: int = DB_THREADS) -> int:
    """How many database threads a server runs: one on SQLite; on PostgreSQL ``configured``
    (the setting ``EXOCHESS_DB_THREADS``).  The connection pool keeps as many connections (see
    :class:`~exochess.web.storage.Storage`)."""
    return 1 if sqlite else max(1, configured)


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
