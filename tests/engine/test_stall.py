"""The engine never stalls: bounded quiescence, a first iteration that always completes,
and answers in time over the protocol (issue 15, item 1).

The Rebel Fury positions after ``1. e2-e3`` and ``1. e2-e3 e11-e10`` used to keep the
quiescence search busy for minutes (a Harpy's or a Fury's flight captures across the
whole board, so both sides always had another capture).  No assertion here reads a clock:
the tests check that searches finish and that their node counts and depths are bounded.
"""

from __future__ import annotations

import pytest

from exochess import Board
from exochess.engine import Limits, Searcher, analyse, best_move
from exochess.engine.evaluate import evaluator_for
from exochess.engine.search import FIRST_QUIESCENCE, MATE_BOUND
from tests.engine.test_protocol import session

AFTER_E3 = "fdcghmxjgcdf/aaaaaaaaaaaa/12/12/12/12/12/12/12/4A7/AAAA1AAAAAAA/FDCGHMXJGCDF b"
"""Rebel Fury after 1. e2-e3."""
STALLS = [(AFTER_E3, []), (AFTER_E3, ["e11-e10"])]
"""The stall positions of issue 15: a FEN and the moves played from it."""
IDS = ["e2-e3", "e2-e3 e11-e10"]


def stall_board(fen: str, moves: list[str]) -> Board:
    board = Board("rebelfury", fen=fen)
    for text in moves:
        board.push_text(text)
    return board


@pytest.mark.parametrize(("fen", "moves"), STALLS, ids=IDS)
def test_stall_positions_complete_depth_3(fen: str, moves: list[str]) -> None:
    board = stall_board(fen, moves)
    depths: list[int] = []
    result = analyse(board, depth=3, on_iteration=lambda a: depths.append(a.depth))
    assert depths == [1, 2, 3]
    assert result.depth == 3 and result.best in board.legal_moves
    # Before the bounds, 100,000 nodes did not finish depth 1 here (the quiescence of the first
    # root move reached 42 plies); depth 3 now takes well under 20,000.
    assert result.nodes < 50_000
    # The quiescence stops at the game's cap: no line is longer than the depth plus that cap.
    assert result.seldepth <= 3 + evaluator_for(board.variant).quiescence_max


@pytest.mark.parametrize(("fen", "moves"), STALLS, ids=IDS)
def test_first_iteration_completes_whatever_the_budget(fen: str, moves: list[str]) -> None:
    board = stall_board(fen, moves)
    for limits in (Limits(nodes=1), Limits(movetime_ms=1)):
        result = Searcher().search(board, limits)
        assert result.depth >= 1, limits
        assert result.best in board.legal_moves
    # The first iteration's quiescence is capped hard: one ply of any capture, then recaptures.
    result = Searcher().search(board, Limits(nodes=1))
    assert result.depth == 1
    assert result.seldepth <= 1 + FIRST_QUIESCENCE[1]


def test_stop_during_the_search_ends_it_after_the_running_iteration() -> None:
    # stop() as the first iteration reports (as an interface's "stop" would): no second one.
    board = stall_board(*STALLS[1])
    searcher = Searcher()
    result = searcher.search(board, Limits(nodes=1), on_iteration=lambda a: searcher.stop())
    assert result.depth == 1 and result.best in board.legal_moves


def test_weak_levels_still_play_in_the_stall_positions() -> None:
    # Levels 2-4 look one ply deep with quiescence: depth 1 is searched again with the game's
    # own caps after the capped first pass, within the level's time.
    board = stall_board(*STALLS[1])
    for lv in (2, 3, 4):
        assert best_move(board, lv, movetime_ms=400, seed=1) in board.legal_moves


@pytest.mark.parametrize(("fen", "moves"), STALLS, ids=IDS)
@pytest.mark.parametrize("go", ["go movetime 200", "go nodes 1"])
def test_go_answers_with_a_completed_iteration(fen: str, moves: list[str], go: str) -> None:
    tail = f" moves {' '.join(moves)}" if moves else ""
    out = session(f"setoption name Variant value rebelfury\nposition fen {fen}{tail}\n{go}\n")
    infos = [line.split() for line in out if line.startswith("info depth")]
    assert infos and int(infos[-1][2]) >= 1
    assert out[-1].startswith("bestmove ")
    board = stall_board(fen, moves)
    assert board.parse_move(out[-1].split()[1]) in board.legal_moves


def test_quiescence_past_its_full_plies_still_takes_a_royal() -> None:
    # With recaptures only from the first quiescence ply on, a King left en prise to a Queen
    # far away is still taken there (a royal capture is always tried), so depth 1 sees it:
    # it does not play Kxf1, which wins a piece but stays on the Queen's rank.
    from exochess.variants.fugue.evaluation import FugueEvaluator

    class RecapturesOnly(FugueEvaluator):
        quiescence_full = 0

    board = Board("fugue", fen="k7/8/8/8/8/8/8/q3Ks2 w")
    result = Searcher(RecapturesOnly(board.variant)).search(board, Limits(depth=1))
    assert board.parse_move(str(result.best)) in board.legal_moves
    assert str(result.best)[-1] != "1", result.best
    assert result.score_cp > -MATE_BOUND
