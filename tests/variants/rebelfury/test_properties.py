"""Property tests of Rebel Fury: make/unmake, FEN, move text, agreement with the reference generator."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from exochess import Board, IllegalMoveError, Termination
from exochess.rawmove import TAGS, to_move
from tests.reference_fen import Placement
from tests.variants.rebelfury import reference as ref

LETTERS = "ACDFGHJMXacdfghjmx"
POWER_LETTERS = "ACDGHJX"


@st.composite
def positions(draw: st.DrawFn) -> str:
    """A random Rebel Fury FEN: any mix of pieces, sparse to crowded, either side to move."""
    density = draw(st.sampled_from([0.04, 0.1, 0.2, 0.35, 0.55]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    placement: Placement = {}
    for rank in range(12):
        for file in range(12):
            if rng.random() < density:
                placement[(file, rank)] = rng.choice(LETTERS)
    return ref.format_fen(placement, draw(st.sampled_from("wb")))


def fresh_hash(board: Board) -> int:
    return Board("rebelfury", fen=board.fen()).zobrist_hash()


@settings(max_examples=150, deadline=None)
@given(positions())
def test_fen_round_trip(fen: str) -> None:
    board = Board("rebelfury", fen=fen)
    assert board.fen() == fen
    assert Board("rebelfury", fen=board.fen()).zobrist_hash() == board.zobrist_hash()


@settings(max_examples=80, deadline=None)
@given(positions())
def test_push_pop_restores_fen_and_hash(fen: str) -> None:
    board = Board("rebelfury", fen=fen)
    start_hash = board.zobrist_hash()
    for raw in list(board.raw_moves()):
        expected_after = board.hash_after(raw)
        board.push_raw(raw)
        assert board.zobrist_hash() == expected_after == fresh_hash(board)
        board.pop_raw()
        assert board.fen() == fen
        assert board.zobrist_hash() == start_hash


@settings(max_examples=80, deadline=None)
@given(positions())
def test_move_text_round_trips_with_and_without_tags(fen: str) -> None:
    board = Board("rebelfury", fen=fen)
    raws = board.raw_moves()
    texts = [str(to_move(raw)) for raw in raws]
    assert len(set(texts)) == len(texts), "two raw moves with the same canonical text"
    for raw, text in zip(raws, texts, strict=True):
        assert str(board.parse_move(text)) == text
        tags = raw[TAGS] or ""
        for letter in POWER_LETTERS:
            if letter in tags:
                assert str(board.parse_move(f"{text}/{letter}")) == text
                assert str(board.parse_move(f"{text}/{letter.lower()}")) == text
            else:
                try:
                    board.parse_move(f"{text}/{letter}")
                except IllegalMoveError:
                    pass
                else:
                    raise AssertionError(f"{text}/{letter} accepted")


@settings(max_examples=200, deadline=None)
@given(positions())
def test_agrees_with_reference_generator(fen: str) -> None:
    board = Board("rebelfury", fen=fen)
    placement, side = ref.parse_fen(fen)
    expected = ref.generate(placement, side)
    before = list(board.squares)
    raws = board.variant.generate(board)
    assert board.squares == before, "generation must not touch the board"
    got = {str(to_move(raw)): raw for raw in raws}
    assert set(got) == set(expected)
    other = "b" if side == "w" else "w"
    for text, raw in got.items():
        board.push_raw(raw)
        assert board.fen() == ref.format_fen(expected[text].after, other), text
        board.pop_raw()
        assert set(raw[TAGS] or "") == expected[text].powers, text


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([None, "crowded"]))
def test_random_games_end_only_by_a_rule(seed: int, start: str | None) -> None:
    rng = random.Random(seed)
    fen = None
    if start == "crowded":
        fen = "11f/1a1d2c5/a1f1x2ac1ha/1j1a1ga3a1/4a4g2/7m4/3M4J3/1H3G6/2G3D3A1/A2AXA1F1C2/1A2C1A1A2A/F11 w"
    board = Board("rebelfury", fen=fen)
    seen = {board.zobrist_hash()}
    for _ in range(300):
        outcome = board.outcome()
        if outcome is not None:
            loser = not outcome.winner
            if outcome.termination is Termination.ROYAL_CAPTURE:
                assert board.squares.count(4 if loser else -4) == 0
                assert not board.legal_moves
            else:
                assert outcome.termination is Termination.NO_LEGAL_MOVES
                assert board.turn == loser
                assert not board.variant.generate(board) or all(
                    board.has_occurred(board.hash_after(raw)) for raw in board.variant.generate(board)
                )
            break
        raws = board.raw_moves()
        raw = raws[rng.randrange(len(raws))]
        board.push_raw(raw)
        assert board.zobrist_hash() not in seen, "a position repeated"
        seen.add(board.zobrist_hash())
    while board.ply():
        board.pop_raw()
    assert board.fen() == (fen or Board("rebelfury").fen())


@settings(max_examples=60, deadline=None)
@given(positions(), st.integers(0, 2**32 - 1))
def test_illegal_moves_are_explained(fen: str, seed: int) -> None:
    board = Board("rebelfury", fen=fen)
    rng = random.Random(seed)
    legal = {str(m) for m in board.legal_moves}
    files = "abcdefghijkl"
    for _ in range(20):
        text = (
            f"{rng.choice(files)}{rng.randint(1, 12)}{rng.choice('-x~')}"
            f"{rng.choice(files)}{rng.randint(1, 12)}"
        )
        try:
            move = board.parse_move(text)
        except IllegalMoveError as error:
            assert str(error)
            assert text not in legal
        else:
            assert str(move) in legal
