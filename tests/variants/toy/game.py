"""Toy Skirmish: a fourth game defined only in the tests, to prove that a game is one place.

A tiny game on a 6x6 board: a King (one step in any direction), Rooks and Knights as in
chess, captures by replacement, and the side that loses its King loses.  It has no evaluator
and no rules page of its own.  ``test_toy_game.py`` registers it for one module and drives
every layer with it; ``pytest --toy-game`` registers it for a whole run and narrows the
generic tests (marked ``generic``, parametrized over the registry) to it, which
``test_generic_suite.py`` does in a child pytest.
"""

from __future__ import annotations

from typing import ClassVar

from exochess import Board
from exochess.rawmove import RawMove, make_raw
from exochess.variant import Variant

KING, ROOK, KNIGHT = 1, 2, 3


class ToySkirmish(Variant):
    """The toy game: King, Rooks and Knights on 6x6; capture the King."""

    name = "toy"
    title = "Toy Skirmish"
    aliases = ("skirmish",)
    description = "A test-only game: King, Rooks and Knights on a 6x6 board."
    width = 6
    height = 6
    piece_letters = "KRN"
    piece_names: ClassVar[dict[str, str]] = {"K": "King", "R": "Rook", "N": "Knight"}
    piece_descriptions: ClassVar[dict[str, str]] = {
        "K": "Steps one square in any direction; losing it loses the game.",
        "R": "Slides any distance along a rank or file and captures by replacement.",
        "N": "Leaps as a chess knight and captures by replacement.",
    }
    piece_values: ClassVar[dict[str, int]] = {"R": 500, "N": 300}
    glyphs: ClassVar[dict[str, str]] = {"R": "square", "N": "diamond"}
    royal = "K"
    starting_fen = "rnk1nr/6/6/6/6/RNK1NR w"

    def generate(self, board: Board) -> list[RawMove]:
        geo = self.geometry
        b = board.squares
        side = board.side
        moves: list[RawMove] = []
        for s in geo.occupied(b):
            code = b[s]
            if code * side <= 0:
                continue
            kind = abs(code)
            if kind == ROOK:
                targets = []
                for ray in geo.rays[s][:4]:  # the four orthogonal directions
                    for t in ray:
                        targets.append(t)
                        if b[t]:
                            break
            elif kind == KNIGHT:
                targets = list(geo.knight_targets[s])
            else:
                targets = list(geo.neighbours[s])
            for t in targets:
                victim = b[t]
                if victim * side > 0:
                    continue
                if victim:
                    moves.append(make_raw(s, t, "x", (s, code, 0, t, victim, code), victims=(t,)))
                else:
                    moves.append(make_raw(s, t, "-", (s, code, 0, t, 0, code)))
        return moves
