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

This module is the one place that knows the layout.  Besides the field indices it
declares the *shapes* a raw move may have (:class:`Shape`, checked by
:func:`shape`) and the lengths that hot code unrolls (:data:`ONE_RELOCATION`,
:data:`RELOCATION_AND_VICTIM` ...).  Generators write their tuples as literals,
because a call per generated move would cost more than the rest of the inner loop;
each such literal carries a comment naming its shape, and a test walks random
games checking that every generated tuple has a declared shape.

Engines use raw moves through :meth:`~exochess.board.Board.raw_moves`,
:meth:`~exochess.board.Board.push_raw` and :meth:`~exochess.board.Board.pop_raw`
to avoid building :class:`Move` objects at every node.

>>> raw = make_raw(0, 16, "-", (0, 5, 0, 16, 0, 5))
>>> str(to_move(raw)), changes_of(raw), len(raw) == ONE_RELOCATION, shape(raw)
('a1-a2', (0, 5, 0, 16, 0, 5), True, <Shape.RELOCATION: 'relocation'>)
"""

from __future__ import annotations

from collections.abc import Hashable
from enum import StrEnum
from typing import Any, Final

from exochess.geometry import square_name, victim_order
from exochess.move import KINDS, Action, Move

RawMove = tuple[Any, ...]
"""``(from, to, kind, victims, promotion, extra_after, more, tags, *change_triples)``."""

RawAction = tuple[Any, ...]
"""``(from, to, kind, victims, promotion, changes)`` for the second and later actions of a chain.

``changes`` holds that action's own (square, before, after) triples; the raw
move's ``CHANGES`` is the concatenation of every action's triples, first action
first, so the first action's triples are the leading part of ``CHANGES``.
"""

# --- fields of a raw move ---------------------------------------------------------

FROM: Final = 0
"""Square the moving piece starts on."""
TO: Final = 1
"""Square where it ends its first action."""
KIND: Final = 2
"""Separator character of the first action (see :data:`exochess.move.KINDS`)."""
VICTIMS: Final = 3
"""Canonically sorted tuple of squares of enemy pieces removed by the first action."""
PROMOTION: Final = 4
"""Upper-case type letter of a promotion in the first action, or None."""
EXTRA: Final = 5
"""The variant's extra state after the move (None for games that have none)."""
MORE: Final = 6
"""None, or a tuple of :data:`RawAction` for the further actions of a chain."""
TAGS: Final = 7
"""None, or a string of the power letters that can make this move (Rebel Fury)."""
CHANGES: Final = 8
"""Index where the (square, before, after) triples start."""

# --- fields of a raw action ---------------------------------------------------------
# A RawAction shares its first five fields (FROM .. PROMOTION) with the raw move.

ACTION_CHANGES: Final = 5
"""Index of a :data:`RawAction`'s own tuple of change triples."""
ACTION_LENGTH: Final = 6
"""Number of fields of a :data:`RawAction`."""

# --- change triples -------------------------------------------------------------------

TRIPLE: Final = 3
"""Length of one (square, before, after) change triple."""
SQUARE: Final = 0
"""Offset of the square in a change triple."""
BEFORE: Final = 1
"""Offset of the code the square held before the move."""
AFTER: Final = 2
"""Offset of the code the square holds after the move."""

# --- declared lengths (what hot code unrolls) --------------------------------------------

ONE_REMOVAL: Final = CHANGES + TRIPLE
"""Length (11) of a raw move removing one piece where it stands, the actor staying put
(Fugue's Archer shooting)."""
ONE_RELOCATION: Final = CHANGES + 2 * TRIPLE
"""Length (14) of a raw move of one piece from one square to another, whatever it does to
what stood there: a plain move, a capture by replacement, a swap, mutual destruction,
a promotion.  By far the most common length."""
RELOCATION_AND_VICTIM: Final = CHANGES + 3 * TRIPLE
"""Length (17) of a relocation taking one victim elsewhere than on its destination
(leaps, approach, withdrawal, custodian and strike captures of one piece)."""
RELOCATION_AND_VICTIM_CHANGES: Final = 3 * TRIPLE
"""Length (9) of the changes of one action that relocates and takes one victim elsewhere:
origin, victim, arrival (the commonest Interweave capturing action)."""

SINGLE_VICTIM: Final[tuple[tuple[int, ...], ...]] = tuple((sq,) for sq in range(256))
"""``SINGLE_VICTIM[sq]`` is the shared tuple ``(sq,)``: generators use it instead of building one."""


class Shape(StrEnum):
    """The shapes a raw move may have; :func:`shape` tells which one a tuple has."""

    REMOVAL = "removal"
    """Victims removed where they stand while the actor stays put: a shot, a Remover's
    withdrawal.  One triple per victim; the origin is not among them."""
    RELOCATION = "relocation"
    """A piece leaves ``from`` for ``to``: two triples, origin first.  Whatever stood on
    ``to`` is captured, swapped onto ``from``, or destroyed with the mover."""
    RELOCATION_AND_VICTIMS = "relocation and victims"
    """A relocation plus one triple per victim elsewhere than on ``to``: the origin's
    triple first, the others in the order the generator found them."""
    CHAIN = "chain"
    """Several actions (:data:`MORE`), each a removal or a relocation with or without
    victims; their triples are concatenated, first action first."""


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


def _action(fields: RawMove | RawAction) -> Action:
    return Action(fields[FROM], fields[TO], fields[KIND], fields[VICTIMS], fields[PROMOTION])


def to_move(raw: RawMove) -> Move:
    """Build the public :class:`Move` value of a raw move."""
    first = _action(raw)
    more = raw[MORE]
    if not more:
        return Move((first,))
    return Move((first, *(_action(a) for a in more)))


def split_actions(raw: RawMove) -> list[tuple[Action, tuple[int, ...]]]:
    """A raw move as a list of (action, that action's change triples), in the order played.

    The one splitter of a turn into its actions, for stepwise play and for interfaces
    that animate a chain action by action.

    >>> second = (32, 64, "x", (48,), None, (32, 5, 0, 48, -3, 0, 64, 0, 5))
    >>> raw = make_raw(0, 32, "x", (0, 5, 0, 16, -2, 0, 32, 0, 5, *second[5]), victims=(16,),
    ...                more=(second,))
    >>> [(str(action), changes[::3]) for action, changes in split_actions(raw)]
    [('a1xa3(a2)', (0, 16, 32)), ('a3xa5(a4)', (32, 48, 64))]
    """
    more = raw[MORE] or ()
    changes = raw[CHANGES:]
    first_len = len(changes) - sum(len(a[ACTION_CHANGES]) for a in more)
    steps = [(_action(raw), changes[:first_len])]
    for a in more:
        steps.append((_action(a), a[ACTION_CHANGES]))
    return steps


def is_capture(raw: RawMove) -> bool:
    """Whether a raw move removes at least one enemy piece."""
    if raw[VICTIMS]:
        return True
    more = raw[MORE]
    return bool(more) and any(a[VICTIMS] for a in more)


def shape(raw: RawMove) -> Shape:
    """The declared shape of a raw move; :class:`ValueError` naming the fault if it has none.

    Checks the fields (types, canonical victim order) and that the change triples agree
    with them: every victim loses its piece, the mover leaves its origin, nothing else
    changes.  Meant for tests and debugging: too slow for a search.

    >>> shape(make_raw(0, 16, "x", (0, 5, 0, 16, -2, 5), victims=(16,)))
    <Shape.RELOCATION: 'relocation'>
    >>> shape(make_raw(0, 16, "x", (0, 5, 0, 16, 0, 5), victims=(16,)))
    Traceback (most recent call last):
    ...
    ValueError: a1xa2: victim a2 is not emptied of a piece by the changes
    """
    if not isinstance(raw, tuple) or len(raw) < CHANGES + TRIPLE:
        raise ValueError(f"a raw move is a tuple of at least {CHANGES + TRIPLE} fields, not {raw!r}")
    if (len(raw) - CHANGES) % TRIPLE:
        raise ValueError(f"the changes of a raw move are whole (square, before, after) triples: {raw!r}")
    tags = raw[TAGS]
    if tags is not None and not (isinstance(tags, str) and tags):
        raise ValueError(f"the tags of a raw move are None or a non-empty string: {raw!r}")
    more = raw[MORE]
    if more is None:
        return _action_shape(raw, raw[CHANGES:])
    if not isinstance(more, tuple) or not more:
        raise ValueError(f"the further actions of a raw move are None or a non-empty tuple: {raw!r}")
    for a in more:
        if not isinstance(a, tuple) or len(a) != ACTION_LENGTH:
            raise ValueError(f"a further action has {ACTION_LENGTH} fields, not {a!r}")
    steps = split_actions(raw)
    if len(steps[0][1]) < TRIPLE:
        raise ValueError(f"the further actions' changes leave none to the first action: {raw!r}")
    if sum((changes for _, changes in steps), ()) != raw[CHANGES:]:
        raise ValueError(f"the changes are not the actions' changes concatenated: {raw!r}")
    _action_shape(raw, steps[0][1])
    for a in more:
        _action_shape(a, a[ACTION_CHANGES])
    return Shape.CHAIN


def _action_shape(fields: RawMove | RawAction, changes: tuple[int, ...]) -> Shape:
    """The shape of one action (``fields``: its first five fields), given its own triples."""
    origin, target, kind, victims, promotion = fields[:ACTION_CHANGES]
    name = repr(fields[:ACTION_CHANGES])
    for sq in (origin, target, *(victims if isinstance(victims, tuple) else ())):
        if type(sq) is not int or not 0 <= sq < 256:
            raise ValueError(f"{name}: {sq!r} is not a square index")
    if not isinstance(kind, str) or len(kind) != 1 or kind not in KINDS:
        raise ValueError(f"{name}: the kind {kind!r} is not one of {KINDS!r}")
    if not isinstance(victims, tuple) or list(victims) != sorted(set(victims), key=victim_order):
        raise ValueError(f"{name}: the victims {victims!r} are not a tuple in canonical order")
    name = str(_action(fields))  # now that the fields make an action
    if promotion is not None and not (isinstance(promotion, str) and promotion.isupper()):
        raise ValueError(f"{name}: the promotion {promotion!r} is not None or an upper-case letter")
    if len(changes) < TRIPLE or len(changes) % TRIPLE:
        raise ValueError(f"{name}: its changes {changes!r} are not whole triples")
    triples = [changes[i : i + TRIPLE] for i in range(0, len(changes), TRIPLE)]
    squares = [t[SQUARE] for t in triples]
    if len(set(squares)) != len(squares):
        raise ValueError(f"{name}: one square changes twice within the action")
    changed = {t[SQUARE]: t for t in triples}
    if any(t[BEFORE] == t[AFTER] for t in triples):
        raise ValueError(f"{name}: a change triple changes nothing: {changes!r}")
    for v in victims:  # a victim loses its piece; on the destination the mover may replace it
        if v not in changed or not changed[v][BEFORE] or (changed[v][AFTER] and v != target):
            raise ValueError(f"{name}: victim {square_name(v)} is not emptied of a piece by the changes")
    if origin not in changed:  # nobody moves: only the victims change
        if sorted(squares) != sorted(victims) or not victims:
            raise ValueError(f"{name}: an action whose piece stays put only removes its victims")
        return Shape.REMOVAL
    if squares[0] != origin or not changed[origin][BEFORE]:
        raise ValueError(f"{name}: the origin's triple, holding the mover, comes first")
    if target == origin or target not in changed:
        raise ValueError(f"{name}: a relocation changes its destination {square_name(target)}")
    others = set(squares) - {origin, target}
    if not others <= set(victims):
        raise ValueError(f"{name}: squares other than origin and destination change without being victims")
    return Shape.RELOCATION_AND_VICTIMS if others else Shape.RELOCATION
