"""Fugue: the generator and the evaluation read the board's piece sets, not the squares.

``Board.piece_squares`` holds sets whose iteration order depends on their history; the
moves must still come out in an order fixed by the position alone (search results must not
depend on how a position was reached), and the evaluation must not change.
"""

from __future__ import annotations

import random

import pytest

from exochess import Board
from exochess.engine.evaluate import evaluator_for


def random_game_boards(seed: int, plies: int = 120) -> list[Board]:
    """Copies of the board after each ply of a random game (copies keep the sets' history)."""
    rng = random.Random(seed)
    board = Board("fugue")
    seen = []
    for _ in range(plies):
        if board.decided:
            break
        moves = sorted(board.variant.generate(board), key=repr)
        if not moves:
            break
        board.push_raw(rng.choice(moves))
        seen.append(board.copy())
    return seen


@pytest.mark.parametrize("seed", range(20))
def test_move_order_depends_only_on_the_position(seed: int) -> None:
    for board in random_game_boards(seed):
        variant = board.variant
        fresh = Board("fugue", fen=board.fen())
        assert variant.generate(board) == variant.generate(fresh), board.fen()
        assert variant.generate_captures(board) == variant.generate_captures(fresh), board.fen()


@pytest.mark.parametrize("seed", range(3))
def test_dynamic_evaluation_matches_a_fresh_board(seed: int) -> None:
    boards = random_game_boards(seed)
    ev = evaluator_for(boards[0].variant)
    for board in boards:
        assert ev.dynamic(board) == ev.dynamic(Board("fugue", fen=board.fen())), board.fen()


def test_promotion_types_follow_the_captures() -> None:
    # White lacks every type but the King, Queen and Archer: a pawn may become any other.
    # Once the Queen is captured (its set now empty), the pawn may become a Queen too.
    def promotion_types(board: Board) -> set[str]:
        return {str(m)[-1] for m in board.legal_moves if str(m).startswith("e7-e8=")}

    board = Board("fugue", fen="k7/4P3/8/8/8/3q4/3Q4/K6A w")
    assert promotion_types(board) == set("IUSLW")
    board = Board("fugue", fen="k7/4P3/8/8/8/3q4/3Q4/K6A b")
    board.push_text("d3xd2")
    assert promotion_types(board) == set("QIUSLW")
    board.pop()
    board.push_text("a8-b8")
    assert promotion_types(board) == set("IUSLW")
