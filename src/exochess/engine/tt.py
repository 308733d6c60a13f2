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
"""

from __future__ import annotations

from typing import Any, Final

EXACT: Final = 0
LOWER: Final = 1
"""The score is a lower bound (the search failed high)."""
UPPER: Final = 2
"""The score is an upper bound (the search failed low)."""

Entry = tuple[int, int, int, Any]


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
        """Forget everything (new game)."""
        self.new = {}
        self.old = {}
        self.retired.clear()

    def release(self) -> None:
        """Free the dicts dropped by turnovers (call it when no answer is waiting)."""
        self.retired.clear()

    def __len__(self) -> int:
        return len(self.new) + len(self.old)


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
