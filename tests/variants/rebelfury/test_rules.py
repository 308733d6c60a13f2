"""Rebel Fury: the test positions R-01 ... R-20 of the rules of record (section 5.3), one test each.

Each test compares the exact set of canonical move texts of the piece under
test.  Where the rules give only a count or a partial list, the full list is
spelled out here; those lists were also checked against the independent
reference generator in ``rebelfury_reference.py``.
"""

from __future__ import annotations

import pytest

from exochess import Board, IllegalMoveError, Termination
from exochess.geometry import parse_square, square_name

FRAME = "fd8df/aa8aa/{}/AA8AA/FD8DF w"


def board(fen: str) -> Board:
    return Board("rebelfury", fen=fen)


def moves_of(b: Board, sq: str) -> set[str]:
    return {str(m) for m in b.moves_from(sq)}


def expand(text: str) -> set[str]:
    return set(text.split())


def line(origin: str, df: int, dr: int, first: int, last: int, sep: str = "-") -> set[str]:
    """Moves from ``origin`` to the squares at distances first..last in direction (df, dr)."""
    o = parse_square(origin)
    f, r = o & 15, o >> 4
    return {f"{origin}{sep}{square_name((r + dr * k) * 16 + f + df * k)}" for k in range(first, last + 1)}


def test_r01_seed_capricorn_example() -> None:
    b = board("12/12/3hhh6/12/12/12/11h/4C7/11h/7h4/6hh4/12 w")
    expected = expand(
        "e5-e6 e5-e7 e5-e8 e5xe9(d10,e10,f10) e5-e4 e5-e3 e5-e2 e5-e1 e5-f5 e5-g5 e5-h5 e5-i5 "
        "e5-j5 e5-k5 e5-l5 e5-d5 e5-c5 e5-b5 e5-a5 e5-f6 e5-g7 e5-h8 e5-i9 e5-j10 e5-k11 e5-l12 "
        "e5-d6 e5-c7 e5-b8 e5-a9 e5-f4 e5xg3(g2,h2,h3) e5-d4 e5-c3 e5-b2 e5-a1"
    )
    assert len(expected) == 36
    assert moves_of(b, "e5") == expected
    assert moves_of(b, "e5") == {str(m) for m in b.legal_moves}
    # The strike is automatic: the plain stops on e9 and g3 do not exist.
    for text in ("e5-e9", "e5-g3"):
        with pytest.raises(IllegalMoveError):
            b.parse_move(text)


def test_r02_reconstructed_initial_position() -> None:
    b = Board("rebelfury")
    assert b.fen() == "fdcghmxjgcdf/aaaaaaaaaaaa/12/12/12/12/12/12/12/12/AAAAAAAAAAAA/FDCGHMXJGCDF w"
    assert b.variant.starting_position_note
    expected: set[str] = set()
    for file in "abcdefghijkl":
        for step in (-1, 0, 1):
            target = chr(ord(file) + step)
            if "a" <= target <= "l":
                expected.add(f"{file}2-{target}3")
    assert len(expected) == 34
    expected |= line("a1", 0, 1, 2, 9) | line("a1", 1, 1, 2, 9)
    expected |= expand("a1-b3 a1xa11 a1xk11 a1~a2 a1~b1 a1~b2")
    expected |= line("l1", 0, 1, 2, 9) | line("l1", -1, 1, 2, 9)
    expected |= expand("l1-k3 l1xl11 l1xb11 l1~k1 l1~k2 l1~l2")
    expected |= line("b1", 0, 1, 2, 9) | line("b1", 1, 1, 2, 9)
    expected |= line("k1", 0, 1, 2, 9) | line("k1", -1, 1, 2, 9)
    expected |= expand("e1xe11 g1~f1 g1~f2 g1~g2 g1~h1 g1~h2 h1-g3 h1-i3")
    assert len(expected) == 118
    assert {str(m) for m in b.legal_moves} == expected


def test_r02_black_also_has_118() -> None:
    b = board("fdcghmxjgcdf/aaaaaaaaaaaa/12/12/12/12/12/12/12/12/AAAAAAAAAAAA/FDCGHMXJGCDF b")
    assert len(b.legal_moves) == 118


def test_r03_advancer_capture() -> None:
    b = board(FRAME.format("12/12/12/12/2h2j6/4A7/12/12"))
    assert moves_of(b, "e5") == {"e5xd6(c6)", "e5xe6(f6)"}


def test_r04_advancer_promotion() -> None:
    b = board(FRAME.format("12/12/3h8/12/4A7/12/12/12"))
    assert moves_of(b, "e6") == expand("e6-d7 e6-d7=J e6-e7 e6-e7=J e6-f7 e6-f7=J")
    b.push_text("e6-e7=J")
    assert b.piece_at(parse_square("e7")) is not None
    assert b.piece_at(parse_square("e7")).letter == "J"  # type: ignore[union-attr]


def test_r05_gorgon_gaze() -> None:
    b = board(FRAME.format("12/12/5g6/12/6h5/C11/5J6/12"))
    assert moves_of(b, "a5") == expand("a5-b5 a5-c5 a5-a6 a5-a7 a5-a8 a5-a4 a5-a3 a5-b6 a5-c7 a5-d8 a5-b4")
    assert moves_of(b, "f4") == expand("f4-d3 f4-d5 f4-e2 f4-e6 f4-g2 f4-h3 f4-h5 f4xg6")
    assert moves_of(b, "l2") == set()


def test_r06_dragon() -> None:
    b = board(FRAME.format("12/4h7/12/12/4h1j5/12/2A1Dhh5/12"))
    assert moves_of(b, "e4") == expand(
        "e4-e5 e4-e3 e4-e2 e4-e1 e4-d4 e4-b4 e4-a4 e4-d5 e4-c6 e4-b7 e4-a8 e4-f5 e4-f3 e4-g2 e4-h1 "
        "e4-d3 e4-c2 e4xe7(e6) e4xe8(e6) e4xh7(g6) e4xi8(g6) e4xj9(g6) e4xk10(g6)"
    )


def test_r07_harpy() -> None:
    b = board("fd8df/aa8aa/12/4d7/12/12/J11/12/2A1A7/12/AA2H2j1cAA/FD8DF w")
    assert moves_of(b, "e2") == expand(
        "e2-e3 e2-e1 e2-f2 e2-g2 e2-d2 e2-c2 e2-f3 e2-g4 e2-h5 e2-i6 e2-j7 e2-k8 e2-l9 e2-d3 "
        "e2-f1 e2-d1 e2xe9 e2xj2"
    )


def test_r08_ximaera_frees_a_petrified_piece() -> None:
    b = board(FRAME.format("12/12/7g4/12/12/12/12/3X3C4"))
    assert moves_of(b, "h3") == set()
    assert moves_of(b, "d3") == expand(
        "d3-e3 d3-f3 d3-g3 d3-d4 d3-c3 d3-c4 d3-b5 d3-a6 d3-e4 d3-f5 d3-g6 d3-h7 d3-d2 d3-d1 "
        "d3-c2 d3-e2 d3-f1 d3~h3 d3~b1"
    )
    b.push_text("d3~h3")
    b.push_text("l11-l10")
    assert len(moves_of(b, "d3")) > 0
    assert moves_of(b, "h3") == set()
    assert b.piece_at(parse_square("d3")).letter == "C"  # type: ignore[union-attr]


MIMOTAUR_E4_SLIDES = expand(
    "e4-a4 e4-a8 e4-b4 e4-b7 e4-c2 e4-c4 e4-c6 e4-d3 e4-d4 e4-d5 e4-e1 e4-e2 e4-e3 e4-e5 e4-e6 "
    "e4-e7 e4-e8 e4-f3 e4-f4 e4-f5 e4-g2 e4-g4 e4-g6 e4-h1 e4-h4 e4-h7 e4-i4 e4-i8 e4-j4 e4-j9 "
    "e4-k10 e4-k4 e4-l4"
)


def test_r09_mimotaur_with_capricorn_power() -> None:
    b = board(FRAME.format("12/3chm6/12/12/12/12/4M7/12"))
    assert len(MIMOTAUR_E4_SLIDES) == 33
    assert moves_of(b, "e4") == MIMOTAUR_E4_SLIDES | {"e4xe8(d9,f9)"}
    assert str(b.parse_move("e4xe8(d9,f9)/C")) == "e4xe8(d9,f9)"
    b.push_text("e4xe8(d9,f9)")
    assert b.piece_at(parse_square("e9")) is not None  # the Harpy on the front square stays
    assert b.piece_at(parse_square("d9")) is None
    assert b.piece_at(parse_square("f9")) is None


def test_r10_mimotaur_alone_is_never_taken_by_a_mimotaur() -> None:
    b = board(FRAME.format("12/3jhm6/12/12/12/12/4M7/12"))
    assert moves_of(b, "e4") == MIMOTAUR_E4_SLIDES


MIMOTAUR_E5_SLIDES = expand(
    "e5-a5 e5-b5 e5-c3 e5-c5 e5-d4 e5-d5 e5-e1 e5-e10 e5-e11 e5-e12 e5-e2 e5-e3 e5-e4 e5-e6 "
    "e5-e7 e5-e8 e5-e9 e5-f4 e5-f5 e5-g3 e5-g5 e5-h2 e5-h5 e5-i1 e5-i5 e5-j5 e5-k5 e5-l5"
)


def test_r11_mimotaur_with_advancer_power() -> None:
    b = board(FRAME.format("12/12/12/12/3a1m6/4M7/12/12"))
    assert len(MIMOTAUR_E5_SLIDES) == 28
    assert moves_of(b, "e5") == MIMOTAUR_E5_SLIDES | {"e5xe6(d6,f6)"}
    assert str(b.parse_move("e5xe6(d6,f6)/A")) == "e5xe6(d6,f6)"


def test_r12_mimotaur_without_advancer_victim() -> None:
    b = board(FRAME.format("12/12/12/12/3j1m6/4M7/12/12"))
    assert moves_of(b, "e5") == MIMOTAUR_E5_SLIDES


R13_TAGGED = (
    "e4-e7/D e4-f6/J e4-f2/J e4-d2/J e4-g5/J e4-c5/J e4-g3/J e4-c3/J "
    "e4xd6/J e4xe5(d6)/C e4xe8/H e4xg4(h4)/C e4xh4/G e4xi4(h4)/D e4xj4(h4)/D e4xk4(h4)/D "
    "e4xl4(h4)/D e4xk10(k11,l11)/C e4xl11/G e4~c2/X e4~e6/X e4~h4/X e4~l11/X"
)


def test_r13_fury_all_powers_never_combined() -> None:
    b = board("fd8df/aa8aa/12/3hh7/4j7/12/3cA7/12/4F2x4/12/AAA7AA/FD8DF w")
    slides = expand(
        "e4-e5 e4-e3 e4-e2 e4-e1 e4-f4 e4-g4 e4-d4 e4-c4 e4-b4 e4-a4 e4-f5 e4-g6 e4-h7 e4-i8 "
        "e4-j9 e4-k10 e4-d5 e4-c6 e4-b7 e4-a8 e4-f3 e4-g2 e4-h1 e4-d3"
    )
    assert len(slides) == 24
    tagged = R13_TAGGED.split()
    expected = slides | {t.split("/")[0] for t in tagged}
    assert len(expected) == 47
    assert moves_of(b, "e4") == expected
    for text in tagged:
        move, tag = text.split("/")
        assert str(b.parse_move(text)) == move
        for other in "ACDGHJX":
            if other != tag:
                with pytest.raises(IllegalMoveError):
                    b.parse_move(f"{move}/{other}")
    # The Harpy capture on e8 removes e8 only although squares beyond it are occupied.
    b.push_text("e4xe8")
    assert b.piece_at(parse_square("d9")) is not None
    assert b.piece_at(parse_square("e9")) is not None


def test_r14_petrified_fury_can_only_leap() -> None:
    b = board(FRAME.format("4g7/12/12/12/12/12/4F7/12"))
    assert moves_of(b, "e4") == expand("e4-c3 e4-c5 e4-d2 e4-d6 e4-f2 e4-f6 e4-g3 e4-g5")


def test_r15_facing_gorgons_freeze_each_other() -> None:
    b = board(FRAME.format("12/3g8/12/12/12/12/3G8/12"))
    assert moves_of(b, "d4") == set()
    with pytest.raises(IllegalMoveError, match="petrified"):
        b.parse_move("d4xd9")


def test_r16_mimotaur_gaze() -> None:
    b = board(FRAME.format("12/12/12/12/2C9/12/2G4m4/12"))
    assert moves_of(b, "c4") == set()
    expected = expand(
        "c6-a4 c6-a6 c6-a8 c6-b5 c6-b6 c6-b7 c6-c10 c6-c11 c6-c12 c6-c5 c6-c7 c6-c8 c6-c9 c6-d5 "
        "c6-d6 c6-d7 c6-e4 c6-e6 c6-e8 c6-f3 c6-f6 c6-f9 c6-g10 c6-g2 c6-g6 c6-h1 c6-h11 c6-h6 "
        "c6-i12 c6-i6 c6-j6 c6-k6 c6-l6"
    )
    assert len(expected) == 33
    assert moves_of(b, "c6") == expected


def test_r17_capturing_the_last_fury_wins() -> None:
    b = board("1d8df/aa8aa/10J1/12/12/12/12/12/12/12/AA8AA/FD8DF w")
    expected = expand(
        "k10-a10 k10-b10 k10-c10 k10-c2 k10-d10 k10-d3 k10-e10 k10-e4 k10-f10 k10-f5 k10-g10 "
        "k10-g6 k10-h10 k10-h7 k10-i10 k10-i11 k10-i12 k10-i8 k10-i9 k10-j10 k10-j11 k10-j12 "
        "k10-j8 k10-j9 k10-k3 k10-k4 k10-k5 k10-k6 k10-k7 k10-k8 k10-k9 k10-l10 k10-l8 k10-l9 "
        "k10xl12"
    )
    assert len(expected) == 35
    assert moves_of(b, "k10") == expected
    assert b.outcome() is None
    b.push_text("k10xl12/J")
    outcome = b.outcome()
    assert outcome is not None
    assert outcome.termination is Termination.ROYAL_CAPTURE
    assert outcome.winner is True
    assert len(b.legal_moves) == 0


def test_r17_losing_one_of_two_furies_does_not_lose() -> None:
    b = board("fd8df/aa8aa/10J1/12/12/12/12/12/12/12/AA8AA/FD8DF w")
    b.push_text("k10xl12")
    assert b.outcome() is None


def test_r18_repetition_is_illegal() -> None:
    b = board("fd8df/aa8aa/12/6h5/12/12/3C8/12/3X8/12/AA8AA/FD8DF w")
    for text in ("d4~d6", "g9-g8", "d6~d4"):
        b.push_text(text)
    assert len(b.variant.generate(b)) == 158
    assert len(b.legal_moves) == 157
    assert "g8-g9" not in {str(m) for m in b.legal_moves}
    with pytest.raises(IllegalMoveError, match="repeat"):
        b.parse_move("g8-g9")


def test_r19_stalemate_loses() -> None:
    b = board("10ff/12/12/12/g11/7g4/12/12/12/1A5g4/2A9/F11 w")
    assert len(b.legal_moves) == 0
    outcome = b.outcome()
    assert outcome is not None
    assert outcome.termination is Termination.NO_LEGAL_MOVES
    assert outcome.winner is False


def test_r20_mimotaur_takes_a_fury_with_the_jumper_power() -> None:
    b = board(FRAME.format("12/12/12/12/3d1f6/12/4M7/12"))
    assert moves_of(b, "e4") == expand(
        "e4-f4 e4-d4 e4-e5 e4-e3 e4-e2 e4-e1 e4-f5 e4-f3 e4-d5 e4-c6 e4-b7 e4-a8 e4-d3 e4-c2 e4xf6"
    )
    assert str(b.parse_move("e4xf6/J")) == "e4xf6"
    with pytest.raises(IllegalMoveError):
        b.parse_move("e4xf6/D")


def test_seed_capricorn_example_spares_friends() -> None:
    # The seed diagram with friends and foes mixed on the "o" squares: only foes are removed,
    # and the l5 stop strikes nothing because the Capricorn meets the edge, not a piece.
    b = board("12/12/3HhA6/12/12/12/11h/4C7/11h/7h4/6Gh4/12 w")
    assert "e5xe9(e10)" in moves_of(b, "e5")
    assert "e5xg3(h2,h3)" in moves_of(b, "e5")
    assert "e5-l5" in moves_of(b, "e5")
    b.push_text("e5xe9(e10)")
    assert b.fen() == "12/12/3H1A6/4C7/12/12/11h/12/11h/7h4/6Gh4/12 b"


def test_capricorn_needs_to_travel() -> None:
    # An enemy directly in front does not trigger a strike: the Capricorn must slide first.
    b = board(FRAME.format("12/12/12/12/12/4h7/4C7/12"))
    e5 = parse_square("e5")
    assert not any(e5 in m.victims for m in b.moves_from("e4"))
    assert "e4xk10(k11,l11)" in moves_of(b, "e4")  # the frame's Advancers can be struck


def test_fen_round_trip_with_two_digit_runs() -> None:
    fen = "11f/12/12/12/12/1g10/12/12/12/10G1/12/F11 b"
    assert board(fen).fen() == fen


def test_a_side_whose_only_move_repeats_has_lost() -> None:
    # Black's only mobile piece is the Ximaera a1 (the Ximaeras a2, b2, c2, c1 are petrified by the
    # four White Gorgons; the Advancer b1 stands on Black's last rank).  After
    # e6-e7 a1~b1 e7-e6 its only move b1~a1 would recreate the start: Black cannot move and loses.
    b = board("G1G8G/12/12/12/12/12/4H7/12/12/12/xxx9/xax8G w")
    b.push_text("e6-e7")
    assert {str(m) for m in b.legal_moves} == {"a1~b1"}
    b.push_text("a1~b1")
    b.push_text("e7-e6")
    assert [str(m) for m in b.legal_moves] == []
    assert len(b.variant.generate(b)) == 1
    outcome = b.outcome()
    assert outcome is not None
    assert outcome.termination is Termination.NO_LEGAL_MOVES
    assert outcome.winner is True
