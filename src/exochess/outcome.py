"""How a game ended."""

from __future__ import annotations

import enum
from dataclasses import dataclass

WHITE = True
"""The side that moves first (``board.turn`` is ``WHITE`` or ``BLACK``)."""
BLACK = False
"""The side that moves second."""


class Termination(enum.Enum):
    """Why a game ended.  None of the three games has a draw."""

    ROYAL_CAPTURE = "royal capture"
    """A move of the winner removed a royal and left the loser below its minimum: no King
    (Fugue), fewer than two (Interweave), no Fury (Rebel Fury).  A position that starts
    short of royals does not end by itself; only such a removal does."""
    REPETITION = "repetition"
    """The loser repeated a position for the third time."""
    NO_LEGAL_MOVES = "no legal moves"
    """The loser had to move and could not."""
    RESIGNATION = "resignation"
    """The loser resigned (set by interfaces, never by the rules)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: why it ended and who won."""

    termination: Termination
    """The reason the game ended."""
    winner: bool | None
    """``WHITE`` or ``BLACK``; ``None`` is reserved for a draw, which no exochess game has."""

    def result(self) -> str:
        """The game result in PGN form: ``1-0``, ``0-1`` or ``1/2-1/2``."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner else "0-1"
