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


def compare(board: Board) -> int:
    """Compare the two generators on ``board``, whose moves must not be cached yet."""
    fresh = Counter(board.raw_captures())  # nothing cached: the game's capture generator
    expected = Counter(m for m in board.raw_moves() if m[3])
    assert fresh == expected, board.fen()
    assert Counter(board.raw_captures()) == expected  # the cached path
    if expected and board.variant.captures_compulsory:
        assert all(m[3] for m in board.raw_moves()), board.fen()  # then captures are all the moves
    return len(expected)


def check(board: Board) -> int:
    """Compare the two generators on ``board`` and on each child; return the captures seen."""
    seen = compare(board)  # before anything lists the moves of ``board`` and caches them
    for raw in board.raw_moves():
        board.push_raw(raw)  # push and pop clear the cache
        seen += compare(board)
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


# Interweave positions that the perft files and random games reach rarely or never, each the
# root of a tree compared node by node: turns that are only chains (King, Leaper, Smasher after
# a promotion, Remover after a promotion), a King taken mid-chain, en passant (with promotion),
# a capturing double step (the turn keeps its en-passant right), capturing steps onto the last
# two ranks with a full, partial or empty reserve, reserve counters at eight and nine, a side
# with no move at all, and Black to move.
INTERWEAVE_CORNERS = [
    "8/3p1p2/2p1p3/3p4/3K4/K7/8/6kk w - 000000",  # King chain, three branches
    "8/3p1p2/1K2p3/8/8/K7/8/6kk b - 000000",
    "8/8/4p3/3k4/3K4/8/8/K6k w - 000000",  # the second King falls: the chain stops
    "8/8/8/3k4/2kB4/8/8/K1K5 w - 000000",  # the Remover takes both Kings
    "6kk/8/3p4/5p2/1p1Np3/8/8/K2p3K w - 000000",  # Leaper long leap, double knight, chain
    "8/Nr5R/2rP3n/2N5/7b/4b2P/4P3/kk3KK1 w - 000000",
    "8/7R/3P3n/N1N5/7b/4b2P/4P3/kk3KK1 b - 000200",
    "1n6/4p3/4P3/8/8/8/8/K1K2kk1 w - 101000",  # compulsory promotion, then the Smasher goes on
    "2n1n3/3p4/3P4/8/8/8/8/K1K2kk1 w - 001000",  # promoted Remover fires in the chain
    "6kk/3p4/3P4/8/8/8/8/K1K5 w - 000000",  # no reserve: the leap to the last rank is impossible
    "6kk/3p4/3P4/8/8/8/8/K1K5 w - 010000",
    "3Rn3/6P1/8/8/8/8/8/K1K3kk w - 100000",  # custodian capture on the last rank, must promote
    "3Rn3/6P1/8/8/8/8/8/K1K3kk w - 000000",  # ... and without a reserve
    "8/2Pn4/5P2/8/8/8/8/K1K3kk w - 010000",  # custodian capture on the seventh: optional promotion
    "k1k5/8/8/8/8/5p2/2pN4/K6K b - 000001",  # the same for Black
    "kk6/4pR2/8/3Pp3/8/8/8/6KK w d6,e5 010000",  # en passant with custodian capture and promotion
    "kk6/2p5/8/3P4/8/8/8/6KK b - 000000",  # c7-e5 gives White an en-passant capture
    "kk6/8/8/8/4pR2/8/1P6/K1K5 w - 000000",  # a double step that captures
    "kk6/8/8/4p3/3pBp2/1p6/1P5K/6K1 w - 000000",  # Remover among other captures
    "6kk/8/6K1/7K/8/8/p7/R2p4 w - 000000",  # Smasher approach
    "kk6/8/8/8/8/8/3r4/K2K4 w - 000900",  # reserve counters stop at nine
    "kk6/8/8/8/8/8/3r4/K2K4 w - 000800",
    "kk6/8/8/8/8/r6r/rr4rr/Krr2rrK w - 000000",  # no move at all
]


def walk_interweave(board: Board, depth: int) -> int:
    """:func:`check` at every node down to ``depth``; captures being compulsory, a node's
    capture list is also either empty or all its legal moves."""
    seen = check(board)
    captures = Counter(board.raw_captures())
    assert not captures or captures == Counter(board.raw_moves()), board.fen()
    if depth > 0:
        for raw in board.raw_moves():
            board.push_raw(raw)
            seen += walk_interweave(board, depth - 1)
            board.pop_raw()
    return seen


@pytest.mark.parametrize("fen", INTERWEAVE_CORNERS)
def test_interweave_capture_corner_cases(fen: str) -> None:
    walk_interweave(Board("interweave", fen=fen), 2)
