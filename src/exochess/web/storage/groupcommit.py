"""Moves that reach the database at the same moment are stored by one statement.

A server on PostgreSQL stores each move from one of its database threads.  Under load several
threads hold a move ready at once, and each statement costs PostgreSQL and the server a round
trip, a plan and a commit whatever its size.  :class:`GroupCommit` lets them share one: the
first thread to arrive stores its move at once (the *leader*); threads arriving while its
statement runs wait, and when it returns, the first of them leads the next statement with all
of them.  A move arriving alone goes by itself, without waiting for company, so the grouping
adds no delay; it forms only while a statement is already on its way (and a move kept waiting
longer than :data:`PATIENCE_S` goes alone).

Measured (``bench/cluster.py --statements``: PostgreSQL with fsync off, CPU a move over
4,000 moves of 64 games): one statement a move, PostgreSQL 272-290 µs and the server 604-621
µs; eight moves a statement 70-82 and 116-127 µs.  Under ``bench/cluster.py``'s target 2 a
statement carried 4.5 moves on average, and one server process stored 25% more moves a second
(docs/benchmarks.md, "Cluster", 2026-11-27 16:00).

Every move keeps its own answer: stored, refused by its guard (another writer was first), or
its own error.  If a grouped statement fails, each of its moves is tried again alone, so one
bad move (or an error between them) never decides for the others; a statement is atomic, so
a failed one stored none of them.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

MOST_IN_A_GROUP = 64
"""Moves one statement stores at most (a server has 8 database threads by default, so
groups are smaller in practice; this bounds the statement's size if the threads are raised)."""

PATIENCE_S = 0.25
"""How long a move waits for the statement ahead of it before it goes alone, beside it.  A
statement takes milliseconds, but one can wait for a game's row that another transaction holds
(another server finishing that game, say): the moves queued behind it go their own way then,
instead of waiting on a game that is not theirs."""


class _Waiting(Generic[T]):
    """One move waiting for its statement, and its answer once there is one."""

    __slots__ = ("answered", "done", "error", "item", "leads", "stored")

    def __init__(self, item: T) -> None:
        self.item = item
        self.answered = threading.Event()
        """Set when the move has its answer, or when its thread is to lead the next group."""
        self.done = False
        """Whether :attr:`stored` or :attr:`error` is the answer (set by the leading thread)."""
        self.stored = False
        self.error: BaseException | None = None
        self.leads = False
        """Whether this move's thread is to lead the next group (it was the first waiting)."""

    def answer(self) -> bool:
        if self.error is not None:
            raise self.error
        return self.stored


class GroupCommit(Generic[T]):
    """Stores items one by one or, when several wait at the same moment, in groups.

    ``store_one(item)`` stores one item and says whether its guard let it in;
    ``store_many(items)`` stores several with one statement and says the same of each, in
    order; ``key(item)`` names what an item changes (a game): two items with the same key never
    share a statement, so that the second is judged after the first.

    Alone, an item is stored at once by ``store_one``:

    >>> statements: list[list[str]] = []
    >>> def one(move: str) -> bool:
    ...     statements.append([move])
    ...     return True
    >>> def many(moves: list[str]) -> list[bool]:
    ...     statements.append(moves)
    ...     return [True] * len(moves)
    >>> group = GroupCommit(one, many, key=lambda move: move.split()[0])
    >>> group.store("game1 e2-e4")
    True
    >>> statements
    [['game1 e2-e4']]
    """

    def __init__(
        self,
        store_one: Callable[[T], bool],
        store_many: Callable[[list[T]], list[bool]],
        key: Callable[[T], Hashable],
        most: int = MOST_IN_A_GROUP,
    ) -> None:
        self._store_one = store_one
        self._store_many = store_many
        self._key = key
        self._most = max(1, most)
        self._lock = threading.Lock()
        self._waiting: list[_Waiting[T]] = []
        self._leading = False
        """Whether a thread is storing a group now (the others wait for it)."""
        self.patience = PATIENCE_S
        """Seconds an item waits for the statement ahead of it before going alone."""
        self.observer: Callable[[int], None] | None = None
        """Told the size of every group stored (the server's metrics)."""

    def waiting(self) -> int:
        """Items waiting for a statement now (not counting those a statement is storing)."""
        with self._lock:
            return len(self._waiting)

    def storing(self) -> bool:
        """Whether a statement is on its way now (items arriving wait for it)."""
        with self._lock:
            return self._leading

    def store(self, item: T) -> bool:
        """Store ``item`` (alone, or with those waiting at the same moment); whether its guard
        let it in.  Raises what storing it raised."""
        me = _Waiting(item)
        with self._lock:
            self._waiting.append(me)
            if self._leading:
                leads = False
            else:
                self._leading = leads = True
        if not leads:
            if not me.answered.wait(self.patience):
                with self._lock:  # still waiting, not chosen to lead: go alone
                    alone = not me.leads and me in self._waiting
                    if alone:
                        self._waiting.remove(me)
                if alone:
                    if self.observer is not None:
                        self.observer(1)
                    return self._store_one(item)
                me.answered.wait()
            if not me.leads:
                return me.answer()
        self._lead()
        return me.answer()

    def _lead(self) -> None:
        """Store the waiting items (the leader's own first), then hand the lead to the next."""
        group: list[_Waiting[T]] = []
        try:
            with self._lock:
                keys: set[Hashable] = set()
                later: list[_Waiting[T]] = []
                for waiting in self._waiting:
                    key = self._key(waiting.item)
                    if len(group) < self._most and key not in keys:
                        keys.add(key)
                        group.append(waiting)
                    else:
                        later.append(waiting)
                self._waiting = later
            self._store(group)
        finally:
            for waiting in group:
                if not waiting.done:  # only if storing itself was interrupted
                    waiting.error = RuntimeError("the statement storing this move was interrupted")
                waiting.leads = False
                waiting.answered.set()
            with self._lock:
                if self._waiting:
                    heir = self._waiting[0]
                    heir.leads = True
                    heir.answered.set()
                else:
                    self._leading = False

    def _store(self, group: list[_Waiting[T]]) -> None:
        """Give every item of ``group`` its answer (``done``)."""
        if self.observer is not None:
            self.observer(len(group))
        if len(group) > 1:
            try:
                answers = self._store_many([waiting.item for waiting in group])
            except Exception as exc:  # each goes again alone, to get its own answer
                log.info("a statement of %d moves failed (%s): storing them one by one", len(group), exc)
            else:
                for waiting, stored in zip(group, answers, strict=True):
                    waiting.stored, waiting.done = stored, True
                return
        for waiting in group:
            try:
                waiting.stored = self._store_one(waiting.item)
            except Exception as exc:  # the mover's thread raises it
                waiting.error = exc
            waiting.done = True
