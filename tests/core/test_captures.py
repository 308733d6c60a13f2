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

from exochess import Board
from exochess.rawmove import TAGS, to_move
from tests.helpers import TESTS, game_names, read_perft_file
from tests.variants.rebelfury import reference as rebelfury_reference

VARIANTS = game_names()


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


@pytest.mark.generic
@pytest.mark.parametrize("variant", [v for v in VARIANTS if (TESTS / "variants" / v / "perft.txt").exists()])
def test_captures_of_perft_positions(variant: str) -> None:
    files = [f"variants/{variant}/perft.txt"]
    seen = 0
    fens = {fen for name in files for v, fen, _d, _n in read_perft_file(name) if v == variant}
    for fen in sorted(fens):
        seen += check(Board(variant, fen=fen))
    assert seen > 0


@pytest.mark.generic
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
    "kk6/8/8/8/8/8/3r4/K2K4 w - 000900",  # a reserve count passes nine
    "kk6/8/8/8/8/8/3r4/K2K4 w - 000800",
    "kk6/8/8/8/8/r6r/rr4rr/Krr2rrK w - 000000",  # no move at all
]


def walk_interweave(board: Board, depth: int) -> int:
    """:func:`check` at every node down to ``depth`` (which also asserts, captures being
    compulsory, that a node's capture list is either empty or all its legal moves)."""
    seen = check(board)
    if depth > 0:
        for raw in board.raw_moves():
            board.push_raw(raw)
            seen += walk_interweave(board, depth - 1)
            board.pop_raw()
    return seen


@pytest.mark.parametrize("fen", INTERWEAVE_CORNERS)
def test_interweave_capture_corner_cases(fen: str) -> None:
    walk_interweave(Board("interweave", fen=fen), 2)


# --- Rebel Fury: captures that are not a plain replacement ---------------------------------------

REBELFURY_CASES = [
    # A slide stopped by a Gorgon's gaze on a5 still strikes the occupied front a6.
    ("12/12/12/12/12/12/h11/11g/12/12/12/C11 w", ["a1xa5(a6)"]),
    # A petrified Fury keeps only its knight leaps: one capture, no slide or swap.
    ("12/12/12/12/12/12/12/12/4g7/3h8/12/4F6m w", ["e1xd3"]),
    # A petrified Mimotaur leaps only to take a Jumper or a Fury: here the Jumper, not the Harpy.
    ("12/12/12/12/12/12/12/12/4g7/3j8/12/4M6f w", ["e1xd3"]),
    ("12/12/12/12/12/12/12/12/4g7/3h8/12/4M6f w", []),
    # The Mimotaur's copied strike: the Capricorn makes it count, and the Mimotaur beside it goes too.
    ("12/12/12/12/12/12/1cm9/12/1M10/12/12/12 w", ["b4xb5(b6,c6)"]),
    # ... but a fan of an Advancer and a Mimotaur gives no strike at all.
    ("12/12/12/12/12/12/1am9/12/1M10/12/12/12 w", []),
    # A Fury's strike on a friendly front removes nothing and its swap has no victims: no captures.
    ("12/12/12/12/12/12/1A10/12/1F10/12/12/12 w", []),
    # An Advancer step into the zone that strikes both sides, with and without promotion.
    ("12/12/12/12/12/3h1a6/4A7/12/12/12/12/12 w", ["e6xe7(d7,f7)", "e6xe7(d7,f7)=J"]),
]


@pytest.mark.parametrize(("fen", "expected"), REBELFURY_CASES)
def test_rebelfury_capture_corner_cases(fen: str, expected: list[str]) -> None:
    board = Board("rebelfury", fen=fen)
    assert sorted(str(to_move(m)) for m in board.variant.generate_captures(board)) == expected
    check(board)


def test_rebelfury_captures_of_random_positions() -> None:
    """Any mix of pieces, sparse to crowded: every capturing power of every piece that has it."""
    rng = random.Random(7)
    seen: set[tuple[str, int]] = set()
    promotions = multiple = 0
    for index in range(400):
        density = (0.04, 0.1, 0.2, 0.35, 0.55, 0.8)[index % 6]
        placement = {
            (file, rank): rng.choice("ACDFGHJMXacdfghjmx")
            for rank in range(12)
            for file in range(12)
            if rng.random() < density
        }
        board = Board("rebelfury", fen=rebelfury_reference.format_fen(placement, rng.choice("wb")))
        variant = board.variant
        expected = Counter(m for m in variant.generate(board) if m[3])
        assert Counter(variant.generate_captures(board)) == expected, board.fen()
        for m in expected:
            seen.add((m[TAGS], board.squares[m[0]] * board.side))
            promotions += m[4] is not None
            multiple += len(m[3]) > 1
        if index % 40 == 0:
            check(board)
    # (power tag, moving type): Advancer 1, Capricorn 2, Dragon 3, Fury 4, Gorgon 5, Harpy 6,
    # Jumper 7, Mimotaur 8.  No ("G", 8): the Mimotaur takes only Gorgons and Furies with the
    # Gorgon power, and their gaze holds it.
    assert seen == {
        ("A", 1),
        ("A", 8),
        ("C", 2),
        ("C", 4),
        ("C", 8),
        ("D", 3),
        ("D", 4),
        ("D", 8),
        ("G", 4),
        ("G", 5),
        ("H", 4),
        ("H", 6),
        ("H", 8),
        ("J", 4),
        ("J", 7),
        ("J", 8),
    }
    assert promotions and multiple
