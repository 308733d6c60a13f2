"""The compact move records that move generators produce and boards play.

A *raw move* is one flat tuple, cheap to build in a generator's inner loop and
cheap to play and undo:

    (from, to, kind, victims, promotion, extra_after, more, tags, s1, b1, a1, s2, b2, a2, ...)

The first eight fields (addressed by the constants below) describe the move;
everything from index :data:`CHANGES` on is a run of (square, before, after)
triples listing every square the move alters.  Playing sets each square to
``after`` in order; undoing walks the triples backwards restoring ``before``.
This one mechanism covers every game: relocations, multi-piece captures, swaps,
promotions and whole Interweave capture chains (whose triples are simply
concatenated, first action first).  Keeping the triples inside the same tuple
saves one object per generated move, in time and in the memory of the history.

Engines use raw moves through :meth:`~exochess.board.Board.raw_moves`,
:meth:`~exochess.board.Board.push_raw` and :meth:`~exochess.board.Board.pop_raw`
to avoid building :class:`Move` objects at every node.

>>> raw = make_raw(0, 16, "-", (0, 5, 0, 16, 0, 5))
>>> str(to_move(raw)), changes_of(raw)
('a1-a2', (0, 5, 0, 16, 0, 5))
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from exochess.move import Action, Move

RawMove = tuple[Any, ...]
"""``(from, to, kind, victims, promotion, extra_after, more, tags, *change_triples)``."""

RawAction = tuple[Any, ...]
"""``(from, to, kind, victims, promotion, changes)`` for the second and later actions of a chain.

``changes`` holds that action's own (square, before, after) triples; the raw
move's ``CHANGES`` is the concatenation of every action's triples, first action
first, so the first action's triples are the leading part of ``CHANGES``.
"""

FROM = 0
"""Square the moving piece starts on."""
TO = 1
"""Square where it ends its first action."""
KIND = 2
"""Separator character of the first action (see :data:`exochess.move.KINDS`)."""
VICTIMS = 3
"""Canonically sorted tuple of squares of enemy pieces removed by the first action."""
PROMOTION = 4
"""Upper-case type letter of a promotion in the first action, or None."""
EXTRA = 5
"""The variant's extra state after the move (None for games that have none)."""
MORE = 6
"""None, or a tuple of :data:`RawAction` for the further actions of a chain."""
TAGS = 7
"""None, or a string of the power letters that can make this move (Rebel Fury)."""
CHANGES = 8
"""Index where the (square, before, after) triples start."""

SINGLE_VICTIM: tuple[tuple[int, ...], ...] = tuple((sq,) for sq in range(256))
"""``SINGLE_VICTIM[sq]`` is the shared tuple ``(sq,)``: generators use it instead of building one."""


def make_raw(
    origin: int,
    target: int,
    kind: str,
    changes: tuple[int, ...],
    victims: tuple[int, ...] = (),
    promotion: str | None = None,
    extra: Hashable = None,
    more: tuple[RawAction, ...] | None = None,
    tags: str | None = None,
) -> RawMove:
    """Build a raw move from its parts (convenient where speed does not matter)."""
    return (origin, target, kind, victims, promotion, extra, more, tags, *changes)


def changes_of(raw: RawMove) -> tuple[int, ...]:
    """The (square, before, after) triples of a raw move, as one flat tuple."""
    return raw[CHANGES:]


def to_move(raw: RawMove) -> Move:
    """Build the public :class:`Move` value of a raw move."""
    first = Action(raw[0], raw[1], raw[2], raw[3], raw[4])
    more = raw[MORE]
    if not more:
        return Move((first,))
    return Move((first, *(Action(a[0], a[1], a[2], a[3], a[4]) for a in more)))


def is_capture(raw: RawMove) -> bool:
    """Whether a raw move removes at least one enemy piece."""
    if raw[VICTIMS]:
        return True
    more = raw[MORE]
    return bool(more) and any(a[3] for a in more)
