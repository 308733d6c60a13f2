"""Transposition table keyed by the board's Zobrist hash.

Two Python dicts ("generations"): entries go to ``new``; when it holds ``capacity``
entries it becomes ``old`` and a fresh ``new`` starts.  A probe looks in ``new``
then ``old``.  This bounds memory and keeps the most recent work, at the cost of
one dict lookup more than a plain dict.  The ``old`` dict a turnover drops waits in
``retired`` until the owner calls :meth:`release` after answering: freeing 400,000
entries takes 25-30 ms (more in a process with a large heap), which would otherwise
fall inside a timed search.  The search does the probe and the common
case of the store inline (a method call per node costs more than the lookups);
it relies on exactly this layout.

An entry is ``(depth, score, flag, move)`` with ``move`` the raw move (a tuple
equal to the one the generator produces again in that position, or None).
Mate scores are stored relative to the node (see :func:`to_tt` / :func:`from_tt`).

Memory: UCI's ``Hash`` option (MiB) sets the capacity through :func:`hash_capacity`, from
the bytes an entry was measured to cost (:data:`TT_ENTRY_BYTES`).  Dropped tables are not
freed inline but handed to :func:`reclaim`, a background thread that frees them a slice at
a time: freeing 400,000 entries at once held the interpreter for 170-430 ms (``ucinewgame``
after a long search), during which no command was read.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Any, Final

EXACT: Final = 0
LOWER: Final = 1
"""The score is a lower bound (the search failed high)."""
UPPER: Final = 2
"""The score is an upper bound (the search failed low)."""

Entry = tuple[int, int, int, Any]

TT_ENTRY_BYTES: Final = 350
"""Memory an entry holds: the dict slot, the key (a 64-bit int), the entry tuple, its score and
the raw move it keeps alive (a tuple of 14-17 fields).  Measured by summing ``sys.getsizeof``
over the table after searches (250-360 bytes by game; docs/engine.md, "Memory")."""
DEFAULT_HASH_MB: Final = 64
"""The ``Hash`` option's default (MiB)."""
MIN_HASH_MB: Final = 1
MAX_HASH_MB: Final = 4096
TT_SHARE: Final = 0.5
"""Share of ``Hash`` given to the transposition table; the search's evaluation and capture caches
get the rest (:meth:`Searcher.__init__ <exochess.engine.search.Searcher>`)."""


def hash_capacity(hash_mb: int, share: float = TT_SHARE, entry_bytes: int = TT_ENTRY_BYTES) -> int:
    """Entries of one generation so that the table holds at most ``share`` of ``hash_mb`` MiB.

    Three generations can be alive at once (``new``, ``old`` and the ``retired`` one waiting
    for :meth:`TranspositionTable.release`), so each gets a third.
    """
    return max(64, int(hash_mb * 2**20 * share / (3 * entry_bytes)))


class TranspositionTable:
    """Bounded map from Zobrist hash to search results."""

    __slots__ = ("capacity", "new", "old", "retired")

    def __init__(self, capacity: int = 400_000) -> None:
        self.capacity = max(1, capacity)
        self.new: dict[int, Entry] = {}
        self.old: dict[int, Entry] = {}
        self.retired: list[dict[int, Entry]] = []
        """Dicts dropped by a turnover, freed by :meth:`release`."""

    def get(self, key: int) -> Entry | None:
        """The entry stored for ``key``, or None."""
        entry = self.new.get(key)
        if entry is None:
            entry = self.old.get(key)
        return entry

    def put(self, key: int, entry: Entry) -> None:
        """Store an entry (replacing any earlier one for ``key``)."""
        new = self.new
        if len(new) >= self.capacity:
            # At most one dropped dict waits (bounded memory): a long search that turns the
            # table over twice frees the older one here, as it always did.
            self.retired[:] = (self.old,)
            self.old = new
            self.new = new = {}
        new[key] = entry

    def clear(self) -> None:
        """Forget everything (new game); the old entries are freed in the background (:func:`reclaim`)."""
        reclaim([self.new, self.old, *self.retired])
        self.new = {}
        self.old = {}
        self.retired = []

    def release(self) -> None:
        """Free the dicts dropped by turnovers (call it when no answer is waiting), in the background."""
        if self.retired:
            reclaim(self.retired)
            self.retired = []

    @property
    def max_entries(self) -> int:
        """The most entries the table can hold at once, the retired generation included."""
        return 3 * self.capacity

    def __len__(self) -> int:
        return len(self.new) + len(self.old)


RECLAIM_SLICE: Final = 2000
"""Entries freed between two pauses of the reclaiming thread (well under a millisecond)."""

_reclaim_queue: queue.SimpleQueue[list[Any]] = queue.SimpleQueue()
_reclaim_lock = threading.Lock()
_reclaimer: threading.Thread | None = None
_pending = 0
_idle = threading.Event()
_idle.set()


def reclaim(containers: list[Any]) -> None:
    """Free dicts and lists in a background thread, a slice at a time, yielding between slices.

    Dropping a dict of a million tuples frees them all in one C call that holds the GIL;
    popping them in slices lets the thread reading commands (and the search) run between.
    Each container must no longer be used by the caller.
    """
    global _reclaimer, _pending
    containers = [c for c in containers if c]
    if not containers:
        return
    with _reclaim_lock:
        _pending += 1
        _idle.clear()
        if _reclaimer is None or not _reclaimer.is_alive():
            _reclaimer = threading.Thread(target=_reclaim_loop, name="exochess-reclaim", daemon=True)
            _reclaimer.start()
    _reclaim_queue.put(containers)


def reclaim_wait(timeout: float | None = None) -> bool:
    """Wait until everything handed to :func:`reclaim` is freed (tests, benches); False on timeout."""
    return _idle.wait(timeout)


def _reclaim_loop() -> None:
    global _pending
    while True:
        containers = _reclaim_queue.get()
        for c in containers:
            pop = c.popitem if isinstance(c, dict) else c.pop
            n = len(c)
            while n > 0:
                for _ in range(min(n, RECLAIM_SLICE)):
                    pop()
                n = len(c)
                time.sleep(0)  # let the other threads run between slices
        del containers, c
        with _reclaim_lock:
            _pending -= 1
            if _pending == 0:
                _idle.set()


def to_tt(score: int, ply: int, mate_bound: int) -> int:
    """Make a mate score relative to the node before storing it."""
    if score >= mate_bound:
        return score + ply
    if score <= -mate_bound:
        return score - ply
    return score


def from_tt(score: int, ply: int, mate_bound: int) -> int:
    """Make a stored mate score relative to the root again."""
    if score >= mate_bound:
        return score - ply
    if score <= -mate_bound:
        return score + ply
    return score
