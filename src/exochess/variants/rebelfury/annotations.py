"""Rebel Fury's rule states for display: the gaze of every gazer and the pieces it petrifies.

Gorgons and Furies gaze at every enemy piece, Mimotaurs only at enemy Gorgons and Furies
(rules of record 3.4).  A gaze is drawn for both sides whoever is to move, and so are the
petrified pieces: a piece in an enemy gaze stays petrified through its opponent's turn.

>>> from exochess import Board, square_name
>>> board = Board("rebelfury", fen="fd8df/aa8aa/12/3g8/12/12/12/12/3G8/12/AA8AA/FD8DF w")
>>> notes = board.annotations()
>>> [(square_name(m.square), m.kind) for m in notes.marks]
[('k2', 'petrified'), ('d4', 'petrified'), ('d9', 'petrified'), ('k11', 'petrified')]
>>> notes.marks[1].reason
'the Gorgon on d4 is petrified by the Gorgon on d9 and cannot move'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from exochess.annotations import PETRIFIED, Annotations, Gaze, Mark
from exochess.geometry import square_name
from exochess.phrase import Phrase, joined
from exochess.variants.rebelfury.rules import (
    _GAZE_BIT,
    _GAZE_MASK,
    _HAS_JUM,
    GAZE,
    MIMOTAUR,
    MIMOTAUR_GAZE,
)

if TYPE_CHECKING:
    from exochess.board import Board
    from exochess.variant import Variant

_AFFECTS = {GAZE: "every piece", MIMOTAUR_GAZE: "Gorgons and Furies"}
"""What each gaze bit holds, in words."""


def gazers_of(variant: Variant, squares: list[int], square: int) -> list[int]:
    """The enemy gazers that petrify the piece on ``square``, in the order of the board's rays."""
    b = squares
    code = b[square]
    me = 1 if code > 0 else -1
    kind = code * me
    found = []
    for ray in variant.geometry.rays[square]:
        for t in ray:
            x = b[t]
            if not x:
                continue
            if x * me < 0 and _GAZE_BIT[-x * me] & _GAZE_MASK[kind]:
                found.append(t)
            break
    return found


def petrified_reason(variant: Variant, squares: list[int], square: int) -> str | None:
    """Why the piece on ``square`` is petrified and what it may still do, or None if no gaze holds it.

    The sentence an illegal move of that piece is refused with, too.
    """
    gazers = gazers_of(variant, squares, square)
    if not gazers:
        return None
    kind = abs(squares[square])
    names = variant.piece_names
    letters = variant.piece_letters
    by = joined(
        [
            Phrase(
                "the {piece} on {square}", piece=names[letters[abs(squares[g]) - 1]], square=square_name(g)
            )
            for g in gazers
        ]
    )
    fields = {"piece": names[letters[kind - 1]], "square": square_name(square), "by": by}
    if kind == MIMOTAUR:
        return Phrase(
            "the {piece} on {square} is petrified by {by} and can only capture with a Jumper leap", **fields
        )
    if _HAS_JUM[kind]:
        return Phrase(
            "the {piece} on {square} is petrified by {by} and can only make a Jumper leap", **fields
        )
    return Phrase("the {piece} on {square} is petrified by {by} and cannot move", **fields)


def annotate(variant: Variant, board: Board) -> Annotations:
    """The gazes of both sides and the pieces they petrify (see the module text)."""
    b = board.squares
    rays = variant.geometry.rays
    gazes: list[Gaze] = []
    marks: list[Mark] = []
    for g in variant.geometry.squares:
        x = b[g]
        bit = _GAZE_BIT[abs(x)] if x else 0
        if not bit:
            continue
        cells = []
        for ray in rays[g]:
            for t in ray:
                y = b[t]
                if y:
                    if y * x < 0:
                        cells.append(t)
                    break
                cells.append(t)
        gazes.append(Gaze(g, x > 0, tuple(sorted(cells)), _AFFECTS[bit]))
    for s in variant.geometry.squares:
        if b[s]:
            reason = petrified_reason(variant, b, s)
            if reason is not None:
                marks.append(Mark(s, PETRIFIED, reason, tuple(gazers_of(variant, b, s))))
    return Annotations(marks=tuple(marks), gazes=tuple(gazes))
