"""Every game's capture generator agrees with its full generator.

``Board.raw_captures()`` (quiescence, the capture stage of the engine) must give
exactly the capturing moves of ``raw_moves()``, as equal tuples, so that a move
found by one is recognised in the other (transposition-table moves, killers).
Checked on every perft position, each of their children, and seeded random games.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from conftest import read_perft_file

from exochess import Board
from exochess.variants import VARIANT_CLASSES

VARIANTS = [cls.name for cls in VARIANT_CLASSES]


def check(board: Board) -> int:
    """Compare the two generators on ``board`` and on each child; return the captures seen."""
    seen = 0
    for position in [None, *board.raw_moves()]:
        if position is not None:
            board.push_raw(position)
        fresh = Counter(board.raw_captures())  # nothing cached yet: the game's capture generator
        expected = Counter(m for m in board.raw_moves() if m[3])
        assert fresh == expected, board.fen()
        assert Counter(board.raw_captures()) == expected  # the cached path
        if expected and board.variant.captures_compulsory:
            assert all(m[3] for m in board.raw_moves()), board.fen()
        seen += len(expected)
        if position is not None:
            board.pop_raw()
    return seen


@pytest.mark.parametrize("variant", VARIANTS)
def test_captures_of_perft_positions(variant: str) -> None:
    files = [f"perft_{variant}.txt"]
    seen = 0
    fens = {fen for name in files for v, fen, _d, _n in read_perft_file(name) if v == variant}
    for fen in sorted(fens):
        seen += check(Board(variant, fen=fen))
    assert seen > 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_captures_of_random_games(variant: str) -> None:
    rng = random.Random(2026)
    seen = 0
    for _game in range(12):
        board = Board(variant)
        for _ply in range(rng.randrange(10, 60)):
            moves = board.raw_moves()
            if not moves:
                break
            captures = [m for m in moves if m[3]]
            # Prefer captures now and then: positions with few pieces and long chains matter too.
            board.push_raw(rng.choice(captures if captures and rng.random() < 0.5 else moves))
            if _ply % 4 == 0:
                seen += check(board)
    assert seen > 0
