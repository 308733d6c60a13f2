"""exochess: the rules of Fugue, Interweave and Rebel Fury, with a python-chess shaped API.

>>> import exochess
>>> board = exochess.Board("fugue")
>>> board.turn == exochess.WHITE
True
>>> move = board.parse_move("d2-d3")
>>> board.push(move)
>>> str(board.peek())
'd2-d3'
"""

from __future__ import annotations

# First: it decides between the compiled and the pure-Python modules before they load.
from exochess._build import BUILD
from exochess.board import Board, LegalMoveList, Piece
from exochess.errors import (
    ExochessError,
    FenError,
    IllegalMoveError,
    MoveSyntaxError,
    UnknownVariantError,
)
from exochess.geometry import parse_square, square, square_name
from exochess.move import Action, Move
from exochess.outcome import BLACK, WHITE, Outcome, Termination
from exochess.variant import Variant
from exochess.variants import all_variants, find_variant

__version__ = "0.1.0"

__all__ = [
    "BLACK", "BUILD", "WHITE", "Action", "Board", "ExochessError", "FenError", "IllegalMoveError",
    "LegalMoveList", "Move", "MoveSyntaxError", "Outcome", "Piece", "Termination",
    "UnknownVariantError", "Variant", "all_variants", "find_variant", "parse_square",
    "square", "square_name",
]
