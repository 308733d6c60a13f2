"""The engine's staged move generation never plays an illegal move.

The search plays the transposition-table move before generating anything and
takes captures from the games' capture generators; these tests watch every
``push_raw`` the search makes and check it against the full legal move list of
that moment, in every game, including tables filled with misleading moves.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from exochess import Board
from exochess._build import is_compiled
from exochess.board import Board as BoardClass
from exochess.engine import Limits, Searcher
from exochess.engine import search as search_module
from exochess.engine.tt import EXACT
from exochess.rawmove import RawMove
from tests.helpers import game_names, random_walk

VARIANTS = game_names()


@pytest.fixture
def checked_pushes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Make every ``push_raw`` assert that its move is legal; yields a one-item push counter."""
    if is_compiled(search_module):
        # Compiled code calls Board.push_raw straight through mypyc's method table, past a
        # patch on the class; the pure build runs these tests on the same source.
        pytest.skip("the compiled search cannot be watched through a patched Board.push_raw")
    original = BoardClass.push_raw
    count = [0]

    def push_checked(self: Board, raw: RawMove) -> None:
        assert raw in self.raw_moves(), f"illegal move {raw} in {self.fen()}"
        count[0] += 1
        original(self, raw)

    monkeypatch.setattr(BoardClass, "push_raw", push_checked)
    yield count


@pytest.mark.generic
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_move_the_search_plays_is_legal(variant: str, checked_pushes: list[int]) -> None:
    rng = random.Random(11)
    for _ in range(3):
        board = random_walk(variant, rng, rng.randrange(6, 30))
        if board.is_game_over():
            continue
        searcher = Searcher()
        # Two searches share the table, so the second plays table moves found in other orders.
        searcher.search(board, Limits(nodes=1500))
        searcher.search(board, Limits(nodes=1500))
    assert checked_pushes[0] > 1000


def reverse_of(board: Board, raw: RawMove) -> RawMove | None:
    """After the plain step ``raw``, a plain step taking the piece back, if the rules allow one
    but for the history (the position is set up again from its FEN, without history)."""
    if raw[2] != "-" or len(raw) != 14:
        return None
    no_history = Board(board.variant, fen=board.fen())
    steps_back = (m for m in no_history.raw_moves() if (m[0], m[1], m[2]) == (raw[1], raw[0], "-"))
    return next((m for m in steps_back if len(m) == 14), None)


def test_a_table_move_that_would_repeat_a_position_is_refused_in_rebel_fury(
    checked_pushes: list[int],
) -> None:
    """Rebel Fury forbids repeating a position; the hash does not know the history, the search must.

    White steps out, Black steps out, and the search looks at White stepping back: then Black
    stepping back would recreate the position after White's first step.  The table offers
    exactly that move there.
    """
    board = Board("rebelfury")
    black_back = None
    for white in list(board.raw_moves()):
        board.push_raw(white)
        for black in list(board.raw_moves()):
            board.push_raw(black)
            white_back = reverse_of(board, white)
            if white_back is not None:
                board.push_raw(white_back)
                black_back = reverse_of(board, black)
                if black_back is not None:
                    break
                board.pop_raw()
            board.pop_raw()
        if black_back is not None:
            break
        board.pop_raw()
    assert black_back is not None and black_back not in board.raw_moves()  # the repetition ban
    searcher = Searcher()
    searcher.tt.put(board.zobrist_hash(), (0, 0, EXACT, black_back))
    board.pop_raw()
    pushes = checked_pushes[0]
    result = searcher.search(board, Limits(depth=2))
    assert result.best in board.legal_moves
    assert checked_pushes[0] > pushes


@pytest.mark.generic
@pytest.mark.parametrize("variant", VARIANTS)
def test_a_table_move_that_does_not_fit_the_board_is_never_played(
    variant: str, checked_pushes: list[int]
) -> None:
    """As under a key collision: a stored move whose squares hold other pieces here is skipped."""
    rng = random.Random(3)
    board = random_walk(variant, rng, 12)
    elsewhere = random_walk(variant, random.Random(4), 9)
    searcher = Searcher()
    planted = 0
    for raw in list(board.raw_moves()):
        board.push_raw(raw)
        squares = board.squares
        misfits = [
            m for m in elsewhere.raw_moves() if any(squares[m[i]] != m[i + 1] for i in range(8, len(m), 3))
        ]
        if misfits:
            searcher.tt.put(board.zobrist_hash(), (0, 0, EXACT, rng.choice(misfits)))
            planted += 1
        board.pop_raw()
    assert planted > 5
    result = searcher.search(board, Limits(depth=2))
    assert result.best in board.legal_moves
