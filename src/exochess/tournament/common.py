"""What arenas and Swiss events share: colours."""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum


class Colour(Enum):
    """The side a player had in a game."""

    WHITE = "white"
    BLACK = "black"


def colour_balance(colours: Iterable[Colour]) -> int:
    """Whites minus blacks."""
    return sum(1 if c is Colour.WHITE else -1 for c in colours)
