"""Board.piece_squares in both of its modes: updated by every move, or made when asked.

A game chooses with ``Variant.piece_sets``; which one a registered game uses may depend on
the build (compiled Interweave keeps no sets), so each game is played here in the mode it
does not use by default, through a subclass of its own class, as well as in its own.
"""

from __future__ import annotations

import random

import pytest

from exochess import Board, all_variants
from exochess.variant import Variant
from tests.helpers import random_walk

VARIANTS = [v.name for v in all_variants()]


def expected_sets(board: Board) -> list[set[int]]:
    """What a scan of the squares finds, in the form of ``piece_squares``."""
    expected: list[set[int]] = [set() for _ in range(32)]
    for sq, code in enumerate(board.squares):
        if code:
            expected[code & 31].add(sq)
    return expected


def flipped(name: str) -> Variant:
    """The game ``name`` with the other piece-set mode (a plain-Python subclass)."""
    base = type(Board(name).variant)
    subclass: type[Variant] = type(f"{base.__name__}Flipped", (base,), {"piece_sets": not base.piece_sets})
    return subclass()


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("flip", [False, True])
def test_piece_sets_follow_moves_in_both_modes(name: str, flip: bool) -> None:
    variant = flipped(name) if flip else Board(name).variant
    rng = random.Random(7)
    for _ in range(3):
        walked = random_walk(name, rng, rng.randrange(0, 40))
        board = Board(variant, fen=walked.fen())
        assert board.variant.piece_sets is variant.piece_sets
        for _ in range(30):
            raws = board.raw_moves()
            if not raws:
                break
            for raw in raws[:8]:  # played and undone without asking for the sets ...
                board.push_raw(raw)
                board.pop_raw()
            assert board.piece_squares == expected_sets(board)  # ... then asked
            board.push_raw(rng.choice(raws))
            assert board.piece_squares == expected_sets(board)
            copy = board.copy()
            assert copy.piece_squares == board.piece_squares
            assert copy.piece_squares is not board.piece_squares


@pytest.mark.parametrize("flip", [False, True])
def test_stepwise_turns_keep_the_sets_in_both_modes(flip: bool) -> None:
    # An Interweave chain played one action at a time changes the squares between moves.
    variant = flipped("interweave") if flip else Board("interweave").variant
    board = Board(variant, fen="2nkk2r/Rp4pp/2pb2p1/N1p2N2/1n1p3P/2P4P/2KPP2P/4K1B1 w - 101101")
    before = expected_sets(board)
    board.push_action("f5xb5(c5)")
    assert board.turn_open
    assert board.piece_squares == expected_sets(board) != before
    board.push_action("b5xb3(b4)")
    assert board.piece_squares == expected_sets(board)
    board.pop_action()
    assert board.piece_squares == expected_sets(board)
    board.cancel_turn()
    assert board.piece_squares == expected_sets(board) == before
