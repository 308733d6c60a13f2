"""Rebel Fury's annotations on the rules of record's section 5.3 positions with gazes."""

from __future__ import annotations

import pytest

from exochess import Board, IllegalMoveError, parse_square, square_name
from exochess.annotations import PETRIFIED

FRAME_PETRIFIED = {"k2", "k11"}
"""Pieces of the section 5.3 frame that the test positions' Gorgons happen to see (a Gorgon
on d9 or f8 looks down a long diagonal): they are not what the cases are about."""


def petrified(fen: str) -> dict[str, list[str]]:
    """Petrified square -> squares of its gazers (the frame's own pieces left out)."""
    return {
        square_name(m.square): [square_name(s) for s in m.by]
        for m in Board("rebelfury", fen=fen).annotations().marks
        if m.kind == PETRIFIED
    }


def gaze_of(board: Board, square: str) -> list[str]:
    for gaze in board.annotations().gazes:
        if gaze.square == parse_square(square):
            return [square_name(c) for c in gaze.cells]
    raise AssertionError(f"no gazer on {square}")


def test_r05_gorgon_gaze_cells_and_petrified_pieces() -> None:
    fen = "fd8df/aa8aa/12/12/5g6/12/6h5/C11/5J6/12/AA8AA/FD8DF w"
    board = Board("rebelfury", fen=fen)
    cells = set(gaze_of(board, "f8"))
    # gazed end squares of R-05's Capricorn, the petrified J f4 and A l2; not the black Harpy g6
    assert {"c5", "a8", "a3", "d8", "b4", "f4", "l2"} <= cells
    assert "g7" in cells and "g6" not in cells and "f3" not in cells
    found = petrified(fen)
    assert found["f4"] == ["f8"] and found["l2"] == ["f8"]
    notes = board.annotations()
    assert notes.why_stuck(parse_square("l2")) == (
        "the Advancer on l2 is petrified by the Gorgon on f8 and cannot move"
    )
    assert notes.why_stuck(parse_square("f4")) is None  # the Jumper may still leap
    jumper = next(m for m in notes.marks if m.square == parse_square("f4"))
    assert jumper.reason == (
        "the Jumper on f4 is petrified by the Gorgon on f8 and can only make a Jumper leap"
    )


def test_r08_petrified_capricorn() -> None:
    board = Board("rebelfury", fen="fd8df/aa8aa/12/12/7g4/12/12/12/12/3X3C4/AA8AA/FD8DF w")
    assert petrified(board.fen())["h3"] == ["h8"]
    assert board.annotations().why_stuck(parse_square("h3")) == (
        "the Capricorn on h3 is petrified by the Gorgon on h8 and cannot move"
    )


def test_r14_petrified_fury_can_only_leap() -> None:
    board = Board("rebelfury", fen="fd8df/aa8aa/4g7/12/12/12/12/12/4F7/12/AA8AA/FD8DF w")
    mark = next(m for m in board.annotations().marks if m.square == parse_square("e4"))
    assert mark.reason == "the Fury on e4 is petrified by the Gorgon on e10 and can only make a Jumper leap"


def test_r15_facing_gorgons_petrify_each_other() -> None:
    fen = "fd8df/aa8aa/12/3g8/12/12/12/12/3G8/12/AA8AA/FD8DF w"
    found = petrified(fen)
    assert found["d4"] == ["d9"] and found["d9"] == ["d4"]
    board = Board("rebelfury", fen=fen)
    reason = board.annotations().why_stuck(parse_square("d4"))
    with pytest.raises(IllegalMoveError) as info:
        board.push_text("d4xd9")
    assert str(info.value) == f"d4xd9 is illegal: {reason}"


def test_r16_mimotaur_gaze_holds_only_gorgons_and_furies() -> None:
    fen = "fd8df/aa8aa/12/12/12/12/2C9/12/2G4m4/12/AA8AA/FD8DF w"
    board = Board("rebelfury", fen=fen)
    mimotaur = next(g for g in board.annotations().gazes if g.square == parse_square("h4"))
    assert mimotaur.affects == "Gorgons and Furies" and not mimotaur.white
    assert parse_square("e4") in mimotaur.cells
    found = petrified(fen)
    assert found["c4"] == ["h4"]
    assert "c6" not in found  # the Capricorn ignores a Mimotaur's gaze


def test_r19_stalemate_every_piece_says_why() -> None:
    board = Board("rebelfury", fen="10ff/12/12/12/g11/7g4/12/12/12/1A5g4/2A9/F11 w")
    notes = board.annotations()
    stuck = {square_name(sq): reason for sq, reason in notes.stuck}
    assert stuck == {
        # the black Furies' diagonals reach a1 and b3 as well
        "a1": (
            "the Fury on a1 is petrified by the Gorgon on a8 and the Fury on l12 "
            "and can only make a Jumper leap"
        ),
        "c2": "the Advancer on c2 is petrified by the Gorgon on h7 and cannot move",
        "b3": "the Advancer on b3 is petrified by the Gorgon on h3 and the Fury on k12 and cannot move",
    }


def test_r20_gaze_cells_stop_at_the_first_piece() -> None:
    board = Board("rebelfury", fen="fd8df/aa8aa/12/12/12/12/3d1f6/12/4M7/12/AA8AA/FD8DF w")
    cells = gaze_of(board, "f6")
    assert {"f4", "d4", "e5", "f5", "f3"} <= set(cells)  # R-20's slides that stop there
    assert "e6" in cells and "d6" not in cells and "c6" not in cells  # the Dragon d6 is black
    assert "d3" not in cells and "e4" not in cells  # a knight's move away: not on a line
