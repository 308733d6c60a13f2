"""Fugue's rule states for display: pieces frozen by an Immobilizer, pieces protected by a Shield.

Both are read from the position alone (the squares next to each Immobilizer and Shield), for
both sides, whoever is to move: a frozen piece stays frozen through the opponent's turn.

>>> from exochess import Board, square_name
>>> board = Board("fugue", fen="6k1/2I5/1s6/p7/8/8/8/Q6K w")
>>> [(square_name(m.square), m.kind) for m in board.annotations().marks]
[('a5', 'shielded'), ('b6', 'frozen')]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from exochess.annotations import FROZEN, MARK_KINDS, SHIELDED, Annotations, Mark
from exochess.geometry import square_name
from exochess.phrase import Phrase
from exochess.variants.fugue.rules import IMMOBILIZER, SHIELD

if TYPE_CHECKING:
    from exochess.board import Board
    from exochess.variant import Variant


def frozen_reason(variant: Variant, squares: list[int], square: int, immobilizer: int) -> str:
    """The sentence for the piece on ``square`` frozen by the Immobilizer on ``immobilizer``
    (also the reason an illegal move of that piece is refused with)."""
    name = variant.piece_names[variant.letters[abs(squares[square])].upper()]
    return Phrase(
        "the {piece} on {square} is immobilized by the Immobilizer on {by}",
        piece=name,
        square=square_name(square),
        by=square_name(immobilizer),
    )


def annotate(variant: Variant, board: Board) -> Annotations:
    """The frozen and the shielded pieces of both sides (see the module text)."""
    b = board.squares
    near = variant.geometry.neighbours
    marks: list[Mark] = []
    for sign in (1, -1):
        for s in sorted(board.piece_squares[sign * IMMOBILIZER]):
            # Immobilizers do not freeze each other.
            for t in near[s]:
                if b[t] * sign < 0 and b[t] != -sign * IMMOBILIZER:
                    marks.append(Mark(t, FROZEN, frozen_reason(variant, b, t, s), (s,)))
        for s in sorted(board.piece_squares[sign * SHIELD]):
            for t in near[s]:
                if b[t] * sign > 0:
                    name = variant.piece_names[variant.letters[abs(b[t])].upper()]
                    reason = Phrase(
                        "the {piece} on {square} is protected by the Shield on {by}: it cannot be"
                        " captured (it can still be swapped)",
                        piece=name,
                        square=square_name(t),
                        by=square_name(s),
                    )
                    marks.append(Mark(t, SHIELDED, reason, (s,)))
    marks.sort(key=lambda m: (m.square, MARK_KINDS.index(m.kind)))
    return Annotations(marks=tuple(marks))
