"""Board.annotations(): the generic part (stuck pieces and their reasons) and properties that
hold in every game, on random positions reached by play."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exochess import Board, IllegalMoveError, Move, Variant, square_name
from exochess.annotations import FROZEN, MUST_CAPTURE, NONE, PETRIFIED, SHIELDED, Annotations
from exochess.move import Action
from exochess.rawmove import FROM
from tests.helpers import game_names, random_walk

GAMES = game_names()


def refusal(board: Board, square: int) -> str:
    """The reason the board gives when a move of the piece on ``square`` is played anyway."""
    probe = Move((Action(square, square, "-"),))
    with pytest.raises(IllegalMoveError) as info:
        board.push(probe)
    return str(info.value).split(" is illegal: ", 1)[1]


@pytest.mark.generic
@settings(max_examples=60, deadline=None)
@given(st.sampled_from(GAMES), st.integers(0, 2**32 - 1), st.integers(0, 60))
def test_stuck_pieces_are_the_own_pieces_without_a_move(game: str, seed: int, plies: int) -> None:
    board = random_walk(game, random.Random(seed), plies)
    notes = board.annotations()
    if board.decided is not None:
        assert notes.stuck == ()
        return
    origins = {raw[FROM] for raw in board.raw_moves()}
    mine = {sq for sq in board.geometry.squares if board.squares[sq] * board.side > 0}
    assert {sq for sq, _ in notes.stuck} == mine - origins
    for sq, reason in notes.stuck:
        # in the words an illegal move of that piece is refused with
        assert reason == refusal(board, sq)
        assert notes.why_stuck(sq) == reason
    assert all(notes.why_stuck(sq) is None for sq in origins)


@pytest.mark.generic
@settings(max_examples=60, deadline=None)
@given(st.sampled_from(GAMES), st.integers(0, 2**32 - 1), st.integers(0, 60))
def test_marked_pieces_obey_their_mark(game: str, seed: int, plies: int) -> None:
    board = random_walk(game, random.Random(seed), plies)
    if board.decided is not None:
        return
    notes = board.annotations()
    origins = {raw[FROM] for raw in board.raw_moves()}
    for mark in notes.marks:
        assert board.squares[mark.square], "a mark is on a piece"
        assert square_name(mark.square) in mark.reason
        mover = board.squares[mark.square] * board.side > 0
        if mark.kind == FROZEN and mover:
            assert mark.square not in origins  # a frozen piece never has a legal move of its own
        if mark.kind == PETRIFIED and mover and "cannot move" in mark.reason:
            assert mark.square not in origins
        if mark.kind == SHIELDED and not mover:
            # a protected enemy is never among the victims
            assert all(mark.square not in raw[3] for raw in board.raw_moves())
    if board.variant.captures_compulsory:
        captures = {raw[FROM] for raw in board.raw_moves() if raw[3]}
        assert {m.square for m in notes.marks if m.kind == MUST_CAPTURE} == captures
    else:
        assert not any(m.kind == MUST_CAPTURE for m in notes.marks)


def test_marks_come_in_board_order() -> None:
    notes = Board("fugue").annotations()
    assert [m.square for m in notes.marks] == sorted(m.square for m in notes.marks)


def test_a_game_without_an_annotator_shows_nothing_but_stuck_pieces() -> None:
    class Plain(Variant):
        name = "plain-annotations"
        piece_letters = "K"
        piece_names = {"K": "King"}  # noqa: RUF012
        royal = "K"
        starting_fen = "8/8/8/8/8/8/8/K6k w"

        def generate(self, board: Board) -> list:  # type: ignore[type-arg]
            return []

    notes = Plain().annotate(Board(Plain(), fen="8/8/8/8/8/8/8/K6k w"))
    assert notes is NONE and not notes
    board = Board(Plain(), fen="8/8/8/8/8/8/8/K6k w")
    assert board.annotations() == Annotations(stuck=((0, "the King on a1 has no legal move"),))


def test_an_open_turn_is_described_from_its_start() -> None:
    board = Board("interweave", fen="8/3p1p2/2p1p3/3p4/3K4/K7/8/6kk w - 000000")
    before = board.annotations()
    board.push_action("d4xd6(d5)")
    assert board.turn_open
    assert board.annotations() == before
