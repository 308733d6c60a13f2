"""Interweave's rule states for display: the pieces that must capture, and the reserves.

When the side to move can capture, capturing is compulsory: the pieces able to begin a
capture are marked, and every other piece of that side is stuck for the turn (the board's
:meth:`~exochess.board.Board.annotations` says so).  The reserves (captured Smashers, Leapers
and Removers) decide what a pawn may promote to.

>>> from exochess import Board, square_name
>>> notes = Board("interweave", fen="8/8/8/4p3/4Bp2/8/8/K6k w - 000000").annotations()
>>> [(square_name(m.square), m.kind) for m in notes.marks]
[('e4', 'must-capture')]
>>> notes.why_stuck(0)
'capturing is compulsory; White must begin with one of: e4@(e5,f4)'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from exochess.annotations import MUST_CAPTURE, Annotations, Mark, Reserve
from exochess.geometry import square_name
from exochess.move import Action
from exochess.phrase import Phrase
from exochess.rawmove import ACTION_CHANGES, FROM
from exochess.variants.interweave.rules import RESERVE_TYPES, as_extra, reserve_counts, shown_text

if TYPE_CHECKING:
    from exochess.board import Board
    from exochess.variant import Variant


def annotate(variant: Variant, board: Board) -> Annotations:
    """The pieces of the side to move that can (and so one of which must) capture, and the reserves."""
    counts = reserve_counts(as_extra(board.extra)[1])
    reserves = tuple(
        Reserve(white, letter, counts[(0 if white else 3) + i])
        for white in (True, False)
        for i, letter in enumerate(RESERVE_TYPES)
    )
    marks: list[Mark] = []
    if variant.captures_compulsory and board.decided is None:
        # The distinct first actions (a raw move's first five fields): a position can have tens
        # of thousands of chains sharing a few first actions, and only those are made into text.
        starts = {raw[:ACTION_CHANGES] for raw in board.raw_captures()}
        firsts: dict[int, set[str]] = {}
        for fields in starts:
            firsts.setdefault(fields[FROM], set()).add(shown_text(variant, Action(*fields)))
        side = "White" if board.side > 0 else "Black"
        for s in sorted(firsts):
            name = variant.piece_names[variant.letters[abs(board.squares[s])].upper()]
            reason = Phrase(
                "capturing is compulsory: {side} must capture this turn, and the {piece} on {square}"
                " can ({moves})",
                side=side,
                piece=name,
                square=square_name(s),
                moves=" ".join(sorted(firsts[s])),
            )
            marks.append(Mark(s, MUST_CAPTURE, reason))
    return Annotations(marks=tuple(marks), reserves=reserves)
