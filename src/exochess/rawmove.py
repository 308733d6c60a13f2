"""The compact move records that move generators produce and boards play.

A *raw move* is a plain tuple, cheap to build in a generator's inner loop and
cheap to play and undo.  Its fields are addressed by the constants below.  The
only part :class:`~exochess.board.Board` needs to play it is ``CHANGES``: a flat
tuple ``(square, before, after, square, before, after, ...)`` listing every
square the move alters.  Playing sets each square to ``after`` in order;
undoing walks the triples backwards restoring ``before``.  This one mechanism
covers every game: relocations, multi-piece captures, swaps, promotions and
whole Interweave capture chains (whose triples are simply concatenated).

The remaining fields describe the first action for the canonical text, the
variant's extra state after the move, further actions of a chain, and Rebel
Fury power tags.  Engines use raw moves through
:meth:`~exochess.board.Board.raw_moves`, :meth:`~exochess.board.Board.push_raw`
and :meth:`~exochess.board.Board.pop_raw` to avoid building :class:`Move`
objects at every node.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from exochess.move import Action, Move

RawMove = tuple[Any, ...]
"""``(changes, from, to, kind, victims, promotion, extra_after, more_actions, tags)``."""

RawAction = tuple[Any, ...]
"""``(from, to, kind, victims, promotion, changes)`` for the second and later actions of a chain.

``changes`` holds that action's own (square, before, after) triples; the raw
move's ``CHANGES`` is the concatenation of every action's triples, first action
first, so the first action's triples are the leading part of ``CHANGES``.
"""

CHANGES = 0
"""Flat tuple of (square, before, after) triples."""
FROM = 1
"""Square the moving piece starts on."""
TO = 2
"""Square where it ends its first action."""
KIND = 3
"""Separator character of the first action (see :data:`exochess.move.KINDS`)."""
VICTIMS = 4
"""Canonically sorted tuple of squares of enemy pieces removed by the first action."""
PROMOTION = 5
"""Upper-case type letter of a promotion in the first action, or None."""
EXTRA = 6
"""The variant's extra state after the move (None for games that have none)."""
MORE = 7
"""None, or a tuple of :data:`RawAction` for the further actions of a chain."""
TAGS = 8
"""None, or a string of the power letters that can make this move (Rebel Fury)."""


def to_move(raw: RawMove) -> Move:
    """Build the public :class:`Move` value of a raw move."""
    first = Action(raw[FROM], raw[TO], raw[KIND], raw[VICTIMS], raw[PROMOTION])
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


def victim_count(raw: RawMove) -> int:
    """Number of enemy pieces a raw move removes."""
    n = len(raw[VICTIMS])
    more = raw[MORE]
    if more:
        n += sum(len(a[3]) for a in more)
    return n


def extra_of(raw: RawMove) -> Hashable:
    """The variant extra state after a raw move."""
    return raw[EXTRA]  # type: ignore[no-any-return]
