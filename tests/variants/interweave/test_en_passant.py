"""Interweave en passant after a chain that ends with a pawn's double step (RULES 2.5, section 6 row 10).

A pawn standing on its own first rank (only in a constructed position) can step to its
initial rank with a custodian capture and then, in the same chain, double-step with another
one.  The double step is the turn's last action, so the en-passant right it creates survives
the turn, exactly as after a double step played alone.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exochess import Board
from exochess.perft import perft
from exochess.rawmove import to_move
from tests.reference_fen import parse_square_name, square_name
from tests.variants.interweave import reference

CHAIN_DOUBLE_STEP = "kk6/8/8/8/6p1/7p/3Pp2P/KK4P1 w - 000000"
"""The position of issue 16: g1xf2(e2),f2xh4(h3) ends with the double step f2-h4 across g3."""


def turns_after(fen: str) -> dict[str, set[str]]:
    """Each legal turn of ``fen`` with the set of the opponent's replies to it."""
    board = Board("interweave", fen=fen)
    out = {}
    for move in list(board.legal_moves):
        board.push(move)
        out[str(move)] = {str(m) for m in board.legal_moves}
        board.pop()
    return out


def test_chain_ending_with_a_double_step_leaves_the_en_passant_field() -> None:
    board = Board("interweave", fen=CHAIN_DOUBLE_STEP)
    board.push_text("g1xf2(e2),f2xh4(h3)")
    assert board.fen() == "kk6/8/8/8/6pP/8/3P3P/KK6 b g3,h4 000000"
    # The field is the position's state: the same FEN read afresh gives the same replies.
    assert Board("interweave", fen=board.fen()).zobrist_hash() == board.zobrist_hash()
    board.push_text("g4xg2(h4)")
    assert board.fen() == "kk6/8/8/8/8/8/3P2pP/KK6 w - 000000"


def test_move_sets_at_depth_one_and_two() -> None:
    assert turns_after(CHAIN_DOUBLE_STEP) == {
        # Black must take en passant: it is a capture, so it is compulsory.
        "g1xf2(e2),f2xh4(h3)": {"g4xg2(h4)"},
        # A short leap is not a double step: no right, and the g4 pawn may not leap over g3.
        "h2xh4(h3)": {"a8-b7", "b8-a7", "b8-c7", "g4-f3", "g4-h3"},
    }


def test_perft_one_to_three_agrees_with_the_reference() -> None:
    board = Board("interweave", fen=CHAIN_DOUBLE_STEP)
    assert [perft(board, depth) for depth in (1, 2, 3)] == [2, 6, 18]
    assert [reference.perft(CHAIN_DOUBLE_STEP, depth) for depth in (1, 2, 3)] == [2, 6, 18]


def test_black_chain_ending_with_a_double_step() -> None:
    # The same pattern mirrored: Black's pawn on g8 steps to f7 taking e7 (d7 behind it), then
    # double-steps to h5 taking h6 (h7 behind it); White's g5 pawn must take en passant.
    board = Board("interweave", fen="kk4p1/3pP2p/7P/6P1/8/8/8/KK6 b - 000000")
    board.push_text("g8xf7(e7),f7xh5(h6)")
    assert board.fen().split()[2] == "g6,h5"
    assert {str(m) for m in board.legal_moves} == {"g5xg7(h5)"}


STARTS = [
    CHAIN_DOUBLE_STEP,
    # Both sides have a pawn on their own first rank ready for the chain.
    "kk4p1/3pP2p/7P/6P1/6p1/7p/3Pp2P/KK4P1 w - 000000",
    "kk4p1/3pP2p/7P/6P1/6p1/7p/3Pp2P/KK4P1 b - 000000",
    "rbnkknbr/pppppppp/8/8/8/8/PPPPPPPP/RBNKKNBR w - 000000",
    "rb2k1b1/p4p2/1k6/2P5/3r1p1N/1PP1B3/PP2K3/RB2K2N w - 100020",
    "kk6/4pR2/8/3Pp3/8/8/8/6KK w d6,e5 010000",
]


def stepwise_ep(fen: str, texts: list[str]) -> str:
    """The en-passant field after playing the actions ``texts`` one by one with the reference
    generator, whose every action sets the field afresh (a double step) or clears it."""
    pos = reference.from_fen(fen)
    for i, text in enumerate(texts):
        start = parse_square_name(text[:2])
        (act,) = [a for a in reference.actions(pos, start, i == 0) if a.text() == text]
        pos = reference.apply(pos, act)
    return "-" if pos.ep is None else f"{square_name(pos.ep[0])},{square_name(pos.ep[1])}"


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.sampled_from(STARTS), st.integers(1, 30))
def test_en_passant_field_follows_the_last_action(rng: random.Random, start: str, plies: int) -> None:
    board = Board("interweave", fen=start)
    for _ in range(plies):  # every turn of every position of a random game
        fen = board.fen()
        moves = board.raw_moves()
        if board.outcome() is not None or not moves:
            break
        for raw in moves:
            move = to_move(raw)
            board.push_raw(raw)
            assert board.fen().split()[2] == stepwise_ep(fen, [str(a) for a in move.actions]), (fen, move)
            board.pop_raw()
        board.push_raw(rng.choice(moves))
