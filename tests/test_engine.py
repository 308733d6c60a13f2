"""Engine tests: forced wins, legality, budgets, API contract."""

from __future__ import annotations

import random
import threading
import time

import pytest

from exochess import Board, Move
from exochess.engine import Analysis, EngineError, Limits, Searcher, analyse, best_move
from exochess.engine.evaluate import evaluator_for


def test_captures_king_in_one_fugue() -> None:
    board = Board("fugue", fen="3k4/8/8/8/8/8/8/3QK3 w")
    assert str(best_move(board, movetime_ms=2000)) == "d1xd8"


def test_best_move_does_not_modify_board() -> None:
    board = Board("fugue")
    fen = board.fen()
    move = best_move(board, level=3)
    assert isinstance(move, Move)
    assert board.fen() == fen
    assert move in board.legal_moves


def test_analyse_contract() -> None:
    board = Board("fugue")
    seen: list[Analysis] = []
    a = analyse(board, depth=3, on_iteration=seen.append)
    assert [x.depth for x in seen] == [1, 2, 3]
    assert a.depth == 3
    assert a.best == a.pv[0]
    assert a.nodes > 0 and a.nps > 0
    assert a.mate is None
    assert isinstance(a.score_cp, int)


def test_game_over_raises() -> None:
    board = Board("fugue", fen="3k4/8/8/8/8/8/8/3QK3 w")
    board.push_text("d1xd8")
    with pytest.raises(EngineError):
        best_move(board)


def test_stop_from_another_thread_returns_a_move() -> None:
    board = Board("fugue")
    searcher = Searcher()
    result: list[Analysis] = []
    worker = threading.Thread(target=lambda: result.append(searcher.search(board, Limits())))
    worker.start()
    time.sleep(0.3)
    searcher.stop()
    worker.join(timeout=10)
    assert not worker.is_alive()
    assert result and result[0].best in board.legal_moves


def test_node_budget_and_determinism() -> None:
    board = Board("fugue")
    a = Searcher().search(board, Limits(nodes=3000))
    b = Searcher().search(board, Limits(nodes=3000))
    assert a.best == b.best and a.nodes == b.nodes
    assert a.nodes <= 3000 + 1


def test_incremental_score_matches_static() -> None:
    board = Board("fugue")
    ev = evaluator_for(board.variant)
    rng = random.Random(5)
    searcher = Searcher()
    searcher.search(board, Limits(depth=1))
    for _ in range(30):
        moves = board.raw_moves()
        if not moves:
            break
        board.push_raw(rng.choice(moves))
    s = Searcher()
    s.search(board, Limits(depth=2)) if board.raw_moves() else None
    assert ev.static(board) == sum(
        ev.table[(sq << 5) | (board.squares[sq] & 31)] for sq in board.geometry.squares
    )
