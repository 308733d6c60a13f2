"""exochess: the rules of Ultima-family chess variants, with a python-chess shaped API.

The games are listed by :func:`all_variants` (see :mod:`exochess.variants`).

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

from importlib.metadata import PackageNotFoundError, version

# First of the package's modules: it chooses between the compiled and the pure-Python ones.
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

try:
    # The version is written once, in pyproject.toml; the installed metadata carries it here.
    __version__ = version("exochess")
except PackageNotFoundError:  # pragma: no cover - running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "BLACK",
    "BUILD",
    "WHITE",
    "Action",
    "Board",
    "ExochessError",
    "FenError",
    "IllegalMoveError",
    "LegalMoveList",
    "Move",
    "MoveSyntaxError",
    "Outcome",
    "Piece",
    "Termination",
    "UnknownVariantError",
    "Variant",
    "all_variants",
    "find_variant",
    "parse_square",
    "square",
    "square_name",
]
