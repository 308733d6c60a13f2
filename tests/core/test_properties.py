"""Property tests run against every registered game.

Random walks through the game tree check that make/unmake, hashing, FEN and
move text are consistent with each other in every position reached.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exochess import Board, Move, Termination
from exochess.rawmove import to_move
from exochess.variant import FORBIDDEN
from tests.helpers import game_names, random_walk

VARIANTS = game_names()
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_piece_squares_match(board: Board) -> None:
    """The board's piece sets hold exactly the squares of each code (what a scan finds)."""
    expected: list[set[int]] = [set() for _ in range(32)]
    for sq, code in enumerate(board.squares):
        if code:
            expected[code & 31].add(sq)
    assert board.piece_squares == expected


@pytest.mark.generic
@pytest.mark.parametrize("variant", VARIANTS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 60))
def test_push_pop_restores_fen_and_hash(variant: str, seed: int, plies: int) -> None:
    board = random_walk(variant, random.Random(seed), plies)
    fen, key = board.fen(), board.zobrist_hash()
    for move in list(board.legal_moves):
        board.push(move)
        assert_piece_squares_match(board)
        board.pop()
        assert board.fen() == fen
        assert board.zobrist_hash() == key
        assert_piece_squares_match(board)


@pytest.mark.generic
@pytest.mark.parametrize("variant", VARIANTS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 80))
def test_fen_round_trips_and_incremental_hash_is_exact(variant: str, seed: int, plies: int) -> None:
    board = random_walk(variant, random.Random(seed), plies)
    again = Board(variant, fen=board.fen())
    assert again.fen() == board.fen()
    assert again.piece_squares == board.piece_squares
    assert board.copy().piece_squares == board.piece_squares
    assert again.zobrist_hash() == board.zobrist_hash()
    fresh = {str(m) for m in again.legal_moves}
    played = {str(m) for m in board.legal_moves}
    if board.variant.repetition == FORBIDDEN and not board.is_game_over():
        # A board set up from the FEN has no history: moves banned there as repetitions
        # (Rebel Fury) are legal again, and they are the only difference.
        assert played <= fresh
        assert all(
            board.has_occurred(board.hash_after(raw))
            for raw in again.raw_moves()
            if str(to_move(raw)) not in played
        )
    else:
        assert fresh == played or board.is_game_over()


@pytest.mark.generic
@pytest.mark.parametrize("variant", VARIANTS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 60))
def test_move_text_round_trips(variant: str, seed: int, plies: int) -> None:
    board = random_walk(variant, random.Random(seed), plies)
    for move in board.legal_moves:
        text = str(move)
        assert board.parse_move(text) == move
        assert Move.from_text(text) == move
        assert eval(repr(move), {"Move": Move}) == move


@pytest.mark.generic
@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_never_crash_and_end_only_by_a_rule(variant: str, seed: int) -> None:
    rng = random.Random(seed)
    board = Board(variant)
    for _ in range(300):
        outcome = board.outcome()
        if outcome is not None:
            assert outcome.termination in (
                Termination.ROYAL_CAPTURE,
                Termination.REPETITION,
                Termination.NO_LEGAL_MOVES,
            )
            if outcome.termination == Termination.NO_LEGAL_MOVES:
                assert outcome.winner != board.turn
            assert not board.legal_moves
            break
        board.push(rng.choice(list(board.legal_moves)))
    while board.move_stack:
        board.pop()
    assert board.fen() == Board(variant).fen()


@pytest.mark.generic
@pytest.mark.parametrize("variant", VARIANTS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 60))
def test_stepwise_actions_reach_the_same_position_as_whole_turns(variant: str, seed: int, plies: int) -> None:
    board = random_walk(variant, random.Random(seed), plies)
    for move in list(board.legal_moves):
        whole = board.copy()
        whole.push(move)
        stepped = board.copy()
        completed = None
        for i, action in enumerate(move.actions):
            assert action in stepped.legal_actions()
            completed = stepped.push_action(action)
            assert_piece_squares_match(stepped)
            assert (completed is None) == (i < len(move.actions) - 1)
        assert completed == move
        assert stepped.fen() == whole.fen()
        assert stepped.zobrist_hash() == whole.zobrist_hash()
        for _ in move.actions:
            stepped.pop_action()
            assert_piece_squares_match(stepped)
        assert stepped.fen() == board.fen()
        assert not stepped.turn_open
