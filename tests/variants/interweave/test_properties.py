"""Property tests of Interweave: make/unmake, hashing, FEN, move text, stepwise turns, whole games."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exochess import Board, Termination
from exochess.rawmove import to_move
from exochess.variants.interweave import rules as interweave
from exochess.variants.interweave.evaluation import InterweaveEvaluator
from tests.helpers import random_walk

STARTS = [
    "rbnkknbr/pppppppp/8/8/8/8/PPPPPPPP/RBNKKNBR w - 000000",
    "8/Nr5R/2rP3n/2N5/7b/4b2P/4P3/kk3KK1 w - 000000",
    "kk6/4pR2/8/3Pp3/8/8/8/6KK w d6,e5 010000",
    "1n6/4p3/4P3/8/8/8/8/K1K2kk1 w - 101000",
    "r1nkk1br/p2p1Pp1/pp6/3N3p/P5P1/3B4/PP1P3P/R1NKK1BR w - 000011",
    "rb2k1b1/p4p2/1k6/2P5/3r1p1N/1PP1B3/PP2K3/RB2K2N w - 100020",
    # reserve counts about to pass nine, and promotions bringing them back
    "rbnkknbr/pppppppp/8/8/8/8/PPPPPPPP/RBNKKNBR w - 9[10]9[10]9[11]",
]

PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(st.randoms(use_true_random=False), st.sampled_from(STARTS), st.integers(0, 40))
def test_push_pop_restores_fen_and_hash(rng: random.Random, start: str, plies: int) -> None:
    board = random_walk("interweave", rng, plies, start)
    fen = board.fen()
    key = board.zobrist_hash()
    for raw in list(board.raw_moves()):
        expected = board.hash_after(raw)
        board.push_raw(raw)
        # The incremental hash equals the hash of the position read afresh.
        assert board.zobrist_hash() == expected == Board("interweave", fen=board.fen()).zobrist_hash()
        board.pop_raw()
        assert board.fen() == fen
        assert board.zobrist_hash() == key


@PROPERTY
@given(st.randoms(use_true_random=False), st.sampled_from(STARTS), st.integers(0, 60))
def test_fen_round_trips(rng: random.Random, start: str, plies: int) -> None:
    board = random_walk("interweave", rng, plies, start)
    fen = board.fen()
    again = Board("interweave", fen=fen)
    assert again.fen() == fen
    assert again.zobrist_hash() == board.zobrist_hash()
    # A game ended by a King capture or a repetition has no moves, but the same FEN read
    # afresh has no history: compare only where the position alone decides.
    outcome = board.outcome()
    if outcome is None or outcome.termination == Termination.NO_LEGAL_MOVES:
        assert sorted(str(m) for m in again.legal_moves) == sorted(str(m) for m in board.legal_moves)


@PROPERTY
@given(st.randoms(use_true_random=False), st.sampled_from(STARTS), st.integers(0, 40))
def test_move_text_round_trips(rng: random.Random, start: str, plies: int) -> None:
    board = random_walk("interweave", rng, plies, start)
    texts = [str(m) for m in board.legal_moves]
    assert len(set(texts)) == len(texts)  # one text, one move
    for move in board.legal_moves:
        text = str(move)
        assert board.parse_move(text) == move
        assert board.parse_move(text.replace(",", ", ")) == move


@PROPERTY
@given(st.randoms(use_true_random=False), st.sampled_from(STARTS), st.integers(0, 40))
def test_stepwise_turns_reach_the_same_position(rng: random.Random, start: str, plies: int) -> None:
    board = random_walk("interweave", rng, plies, start)
    for raw in list(board.raw_moves()):
        move = to_move(raw)
        board.push_raw(raw)
        expected = board.fen()
        board.pop_raw()
        before = board.fen()
        for i, action in enumerate(move.actions):
            assert action in board.legal_actions()
            finished = board.push_action(action)
            if i < len(move.actions) - 1:
                assert finished is None
                assert board.turn_open
            else:
                assert finished == move
        assert board.fen() == expected
        board.pop()
        assert board.fen() == before


@PROPERTY
@given(st.randoms(use_true_random=False), st.sampled_from(STARTS), st.integers(0, 40))
def test_generated_order_does_not_depend_on_history(rng: random.Random, start: str, plies: int) -> None:
    # The generators find the pieces in Board.piece_squares, sets whose iteration order
    # depends on their history: the lists (not only the sets) of moves must not.
    board = random_walk("interweave", rng, plies, start)
    for raw in list(board.raw_moves()):  # every move made and taken back: more set history
        board.push_raw(raw)
        board.pop_raw()
    fresh = Board("interweave", fen=board.fen())
    variant = board.variant
    assert isinstance(variant, interweave.Interweave)
    for first, second in ((board, fresh), (fresh, board)):  # either may find a remembered position
        assert variant.generate_captures(first) == variant.generate_captures(second)
        assert variant.generate(first) == variant.generate(second)
        assert variant.quiet_moves(first) == variant.quiet_moves(second)
    evaluator = InterweaveEvaluator(variant)
    assert evaluator.dynamic(board) == evaluator.dynamic(fresh)


@PROPERTY
@given(st.randoms(use_true_random=False), st.sampled_from(STARTS), st.integers(0, 40))
def test_reach_filter_loses_no_capture(rng: random.Random, start: str, plies: int) -> None:
    # The capture generator looks only at the pieces with an enemy in reach (REACH tables), and
    # for a pawn's landing or a Leaper's line only when an enemy is in its reach: the same
    # search over every piece and direction finds nothing more.  (Chains, which continue only when an
    # enemy is in reach, are checked against the reference generator in test_interweave_seeds.)
    board = Board("interweave", fen=start)
    variant = board.variant
    assert isinstance(variant, interweave.Interweave)
    for _ in range(plies + 1):  # every position of a random game
        me = board.side
        b = board.squares
        extra = interweave.as_extra(board.extra)
        ep, reserves = extra
        enemies = interweave._enemy_squares(board, me)
        capturers = interweave._capturers(board, me, enemies)
        filtered = variant._first_captures(b, me, extra, capturers, enemies)
        unfiltered: list[tuple[object, ...]] = []
        everywhere = set(interweave.SQUARES)  # every square "holds an enemy": nothing is skipped
        variant._piece_captures(b, me, interweave._own_pieces(board, me), reserves, unfiltered, everywhere)
        if ep:
            variant._en_passant(b, me, ep, reserves, unfiltered)
        assert filtered == unfiltered, board.fen()
        moves = board.raw_moves()
        if board.outcome() is not None or not moves:
            break
        board.push_raw(rng.choice(moves))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.sampled_from(STARTS))
def test_random_games_end_only_by_a_rule(rng: random.Random, start: str) -> None:
    board = Board("interweave", fen=start)
    for _ in range(300):
        outcome = board.outcome()
        if outcome is not None:
            break
        moves = board.raw_moves()
        assert moves
        board.push_raw(rng.choice(moves))
    outcome = board.outcome()
    if outcome is None:
        assert board.ply() == 300
        return
    loser_sign = -1 if outcome.winner else 1
    if outcome.termination == Termination.ROYAL_CAPTURE:
        assert board.squares.count(loser_sign * 1) < 2
        assert board.side == loser_sign
    elif outcome.termination == Termination.NO_LEGAL_MOVES:
        assert not board.raw_moves()
        assert board.side == loser_sign
    else:
        assert outcome.termination == Termination.REPETITION
        assert board.repetition_count() >= 3
        assert board.side == -loser_sign  # the repeating player, who just moved, loses
    # Undo the whole game: the starting position comes back.
    while board.ply():
        board.pop()
    assert board.fen() == Board("interweave", fen=start).fen()
