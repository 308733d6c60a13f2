"""A board's copy keeps the legal moves already listed (the web site hands copies to worker
threads; listing the same position's moves again cost a second generation per move)."""

from __future__ import annotations

import pytest

from exochess.board import Board
from tests.helpers import game_names


@pytest.mark.generic
@pytest.mark.parametrize("variant", game_names())
def test_copy_shares_the_listed_moves_and_lists_its_own_after_a_move(variant: str) -> None:
    board = Board(variant)
    moves = board.raw_moves()
    copy = board.copy()
    assert copy.raw_moves() is moves  # not generated again
    copy.push(next(iter(copy.legal_moves)))
    assert copy.raw_moves() is not moves
    assert board.raw_moves() is moves  # the original is untouched
    fresh = Board(variant, fen=copy.fen())
    assert sorted(map(str, copy.legal_moves)) == sorted(map(str, fresh.legal_moves))
    assert board.copy(stack=False).raw_moves() == moves  # a copy without history lists its own
