"""Interweave's annotations: compulsory captures (rules of record 5.2) and reserves."""

from __future__ import annotations

import pytest

from exochess import Board, parse_square, square_name
from exochess.annotations import MUST_CAPTURE, Reserve
from exochess.move import Action
from exochess.variants.interweave.rules import shown_text


def must_capture(fen: str) -> list[str]:
    return [
        square_name(m.square)
        for m in Board("interweave", fen=fen).annotations().marks
        if m.kind == MUST_CAPTURE
    ]


def test_i01_no_capture_no_mark() -> None:
    assert must_capture("rbnkknbr/pppppppp/8/8/8/8/PPPPPPPP/RBNKKNBR w - 000000") == []


def test_i10_the_capturing_pieces_are_marked_and_the_others_stuck() -> None:
    fen = "8/Nr5R/2rP3n/2N5/7b/4b2P/4P3/kk3KK1 w - 000000"
    assert must_capture(fen) == ["e2", "h3", "c5", "d6", "a7"]
    notes = Board("interweave", fen=fen).annotations()
    mark = next(m for m in notes.marks if m.square == parse_square("a7"))
    assert mark.reason == (
        "capturing is compulsory: White must capture this turn, and the Leaper on a7 can "
        "(a7xc7(b7) a7xe5(c6) a7xe7(b7) a7xg7(b7))"
    )
    stuck = {square_name(sq) for sq, _ in notes.stuck}
    assert stuck == {"h7", "f1", "g1"}
    firsts = "a7xc7(b7) a7xe5(c6) a7xe7(b7) a7xg7(b7) c5xc7(c6) d6xc7(b7,c6) e2xe4(e3) h3xh5(h4,h6)"
    assert notes.why_stuck(parse_square("h7")) == (
        f"capturing is compulsory; White must begin with one of: {firsts}"
    )


def test_i11_en_passant_is_compulsory_too() -> None:
    assert must_capture("3kk3/8/8/8/2pP4/8/8/3KK3 b c3,d4 000000") == ["c4"]


def test_i12_reserves_are_reported_per_side() -> None:
    notes = Board("interweave", fen="3kk3/2P5/4P3/8/8/8/8/3KK3 w - 102030").annotations()
    assert notes.reserves == (
        Reserve(True, "R", 1),
        Reserve(True, "N", 0),
        Reserve(True, "B", 2),
        Reserve(False, "R", 0),
        Reserve(False, "N", 3),
        Reserve(False, "B", 0),
    )


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("e7-e8=R", "e7-e8=S"),
        ("d7xd8=N", "d7xd8=L"),
        ("c7-c8=B", "c7-c8=X"),
        ("e4@(e5,f4)", "e4@(e5,f4)"),
    ],
)
def test_compulsory_capture_texts_write_moves_in_the_boards_letters(text: str, shown: str) -> None:
    """The compulsory-capture reasons list moves as the board draws the pieces (issue 40): a
    promotion to a Smasher is written =S, as on its glyph, not =R, its FEN letter."""
    assert shown_text(Board("interweave").variant, Action.from_text(text)) == shown
