"""Fugue: every worked case of the rules of record (section 5.1, F-01 .. F-20) and the seed diagram."""

from __future__ import annotations

import pytest

from exochess import BLACK, WHITE, Board, IllegalMoveError, Termination
from tests.helpers import moves_of, texts


def split(listing: str) -> set[str]:
    return set(listing.split())


def test_f01_initial_position_has_22_moves_each_side() -> None:
    board = Board("fugue")
    expected = split(
        "a2-a3 a2-b3 b2-a3 b2-b3 b2-c3 c2-b3 c2-c3 c2-d3 d2-c3 d2-d3 d2-e3 e2-d3 e2-e3 e2-f3 "
        "f2-e3 f2-f3 f2-g3 g2-f3 g2-g3 g2-h3 h2-g3 h2-h3"
    )
    assert texts(board.legal_moves) == expected
    black = Board("fugue", fen="wlqksaui/pppppppp/8/8/8/8/PPPPPPPP/IUASKQLW b")
    assert len(black.legal_moves) == 22
    assert all(str(m)[-1] == "6" for m in black.legal_moves)


@pytest.mark.parametrize("fen", ["8/8/3p4/3l4/1wLP4/4Q3/1p3q2/8 w", "7k/8/3p4/3l4/1wLP4/4Q3/1p3q2/7K w"])
def test_f02_seed_diagram_pawn_captures(fen: str) -> None:
    board = Board("fugue", fen=fen)
    moves = moves_of(board, "d4")
    assert moves == split("d4-c3 d4-c5 d4-d3 d4-e4 d4-e5 d4xb4 d4xd6 d4xf2")
    assert {m[-2:] for m in moves if "x" in m} == {"b4", "d6", "f2"}


def test_f03_promotion_pool_of_black_pawn() -> None:
    board = Board("fugue", fen="7k/8/3p4/3l4/1wLP4/4Q3/1p3q2/7K b")
    expected = split("b2-a2 b2-a3 b2-b3 b2-c2 b2-c3")
    for target in ("a1", "b1", "c1"):
        expected |= {f"b2-{target}"} | {f"b2-{target}={t}" for t in "IUAS"}
    assert moves_of(board, "b2") == expected
    assert len(expected) == 20


def test_f04_immobilizer_freezes_but_not_another_immobilizer() -> None:
    board = Board("fugue", fen="7k/8/5I2/4i3/3Q4/8/8/K7 w")
    slides = split(
        "f6-a6 f6-b6 f6-c6 f6-d6 f6-e6 f6-e7 f6-d8 f6-f7 f6-f8 f6-g7 f6-g6 f6-h6 f6-g5 "
        "f6-h4 f6-f5 f6-f4 f6-f3 f6-f2 f6-f1"
    )
    assert texts(board.legal_moves) == slides | split("a1-a2 a1-b1 a1-b2")
    assert moves_of(board, "d4") == set()


def test_f05_cannon_pawn_takes_immobilizer_over_frozen_mount() -> None:
    board = Board("fugue", fen="7k/8/8/3i4/3Q4/3P4/8/K7 w")
    assert texts(board.legal_moves) == split(
        "d3-c2 d3-c3 d3-c4 d3-d2 d3-e2 d3-e3 d3-e4 d3xd5 a1-a2 a1-b1 a1-b2"
    )


def test_f06_archer_range_and_spotters() -> None:
    board = Board("fugue", fen="K7/8/7k/8/5p1P/p1p4P/7p/p1A4p w")
    assert moves_of(board, "c1") == split(
        "c1-b1 c1-b2 c1-c2 c1-d1 c1-d2 c1-e1 c1-e3 c1-f1 c1-g1 c1@a1 c1@a3 c1@c3 c1@f4"
    )


def test_f07_immobilized_piece_spots_for_the_archer() -> None:
    board = Board("fugue", fen="7k/8/8/4i3/3Q4/8/8/K3A3 w")
    expected = split(
        "a1-a2 a1-b1 a1-b2 e1-b1 e1-c1 e1-d1 e1-f1 e1-g1 e1-h1 e1-e2 e1-e3 e1-e4 e1-d2 "
        "e1-c3 e1-b4 e1-a5 e1-f2 e1-g3 e1-h4 e1@e5"
    )
    assert texts(board.legal_moves) == expected


def test_f08_shield_protects_but_does_not_stop_swaps() -> None:
    board = Board("fugue", fen="6k1/8/1s6/p1pW4/1K6/8/8/Q7 w")
    expected = split(
        "a1-a2 a1-a3 a1-a4 a1-b1 a1-c1 a1-d1 a1-e1 a1-f1 a1-g1 a1-h1 a1-b2 a1-c3 a1-d4 a1-e5 "
        "a1-f6 a1-g7 a1-h8 b4-a3 b4-a4 b4-b3 b4-b5 b4-c3 b4-c4 d5-d6 d5-d7 d5-d8 d5-d4 d5-d3 "
        "d5-d2 d5-d1 d5-e5 d5-f5 d5-g5 d5-h5 d5-e6 d5-f7 d5-c6 d5-b7 d5-a8 d5-e4 d5-f3 d5-g2 "
        "d5-h1 d5-c4 d5-b3 d5-a2 d5~c5 d5~g8"
    )
    moves = texts(board.legal_moves)
    assert moves == expected
    assert len(moves) == 48
    assert not moves & {"a1xa5", "b4xa5", "b4xc5", "d5*c5"}


def test_f09_pushme_pullyu_two_victim_choice() -> None:
    board = Board("fugue", fen="k2p4/8/8/4p3/2pU3p/8/8/7K w")
    assert moves_of(board, "d4") == split(
        "d4-a7 d4-b6 d4-c5 d4-d1 d4-d2 d4-d3 d4-d5 d4-d6 d4-e3 d4-f2 d4-g1 d4xa1(e5) d4xb2(e5) "
        "d4xc3(e5) d4xd7(d8) d4xe4(c4) d4xf4(c4) d4xg4(c4) d4xg4(h4)"
    )


def test_f10_pushme_pullyu_protected_approach_victim() -> None:
    board = Board("fugue", fen="k7/8/8/7s/2pU3p/8/8/7K w")
    slides = split(
        "d4-d5 d4-d6 d4-d7 d4-d8 d4-d3 d4-d2 d4-d1 d4-e5 d4-f6 d4-g7 d4-h8 d4-e3 d4-f2 d4-g1 "
        "d4-c5 d4-b6 d4-a7 d4-c3 d4-b2 d4-a1"
    )
    assert moves_of(board, "d4") == slides | split("d4xe4(c4) d4xf4(c4) d4xg4(c4)")


def test_f11_long_leaper() -> None:
    board = Board("fugue", fen="7k/p7/8/8/8/p1p5/1p6/LK6 w")
    assert moves_of(board, "a1") == split("a1-a2 a1xa4(a3) a1xa5(a3) a1xa6(a3)")


def test_f12_swapper_cannot_swap_enemy_swapper_but_can_destroy_it() -> None:
    board = Board("fugue", fen="K7/8/8/3w4/3W2q1/8/8/3k4 w")
    expected = split(
        "d4*d5 d4~d1 d4~g4 d4-a1 d4-a4 d4-a7 d4-b2 d4-b4 d4-b6 d4-c3 d4-c4 d4-c5 d4-d2 d4-d3 "
        "d4-e3 d4-e4 d4-e5 d4-f2 d4-f4 d4-f6 d4-g1 d4-g7 d4-h8"
    )
    assert moves_of(board, "d4") == expected
    assert "d4~d5" not in moves_of(board, "d4")


def test_f13_promotion_pool_and_capture_on_last_rank() -> None:
    board = Board("fugue", fen="k3a3/5Qp1/6P1/8/8/8/L7/K7 w")
    expected = split("g6-f5 g6-f6 g6-g5 g6-h5 g6-h6 g6-h7")
    for base in ("g6-g8", "g6xe8"):
        expected |= {base} | {f"{base}={t}" for t in "IUASW"}
    assert moves_of(board, "g6") == expected
    assert len(expected) == 18


def test_f14_mutual_destruction_of_the_king_wins() -> None:
    board = Board("fugue", fen="8/8/8/4k3/4W3/8/8/K7 w")
    moves = moves_of(board, "e4")
    assert len(moves) == 25
    assert {"e4*e5", "e4~e5"} <= moves
    board.push_text("e4*e5")
    assert board.fen() == "8/8/8/8/8/8/8/K7 b"
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.winner == WHITE
    assert outcome.termination == Termination.ROYAL_CAPTURE
    assert not board.legal_moves


def test_f15_no_legal_move_loses() -> None:
    board = Board("fugue", fen="7k/8/8/8/8/8/1i6/K7 w")
    assert len(board.legal_moves) == 0
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.winner == BLACK
    assert outcome.termination == Termination.NO_LEGAL_MOVES


def test_f16_threefold_repetition_counts_the_initial_position() -> None:
    board = Board("fugue", fen="7k/8/8/8/8/8/8/K7 w")
    line = "a1-a2 h8-h7 a2-a1 h7-h8 a1-a2 h8-h7 a2-a1 h7-h8".split()
    for text in line[:-1]:
        board.push_text(text)
        assert board.outcome() is None
    board.push_text(line[-1])
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.termination == Termination.REPETITION
    assert outcome.winner == WHITE  # Black made the third occurrence and loses
    with pytest.raises(IllegalMoveError, match="game is over"):
        board.push_text("a1-a2")


def test_f17_immobilized_shield_still_protects() -> None:
    board = Board("fugue", fen="6k1/2I5/1s6/p7/8/8/8/Q6K w")
    assert moves_of(board, "a1") == split(
        "a1-a2 a1-a3 a1-a4 a1-b1 a1-c1 a1-d1 a1-e1 a1-f1 a1-g1 a1-b2 a1-c3 a1-d4 a1-e5 a1-f6 a1-g7 a1-h8"
    )


def test_f18_lone_shield_is_capturable() -> None:
    board = Board("fugue", fen="7k/8/1s6/8/8/8/8/1Q5K w")
    moves = moves_of(board, "b1")
    assert len(moves) == 18
    assert "b1xb6" in moves


def test_f19_immobilized_archer_cannot_shoot() -> None:
    board = Board("fugue", fen="7k/8/8/8/8/p7/1i6/A6K w")
    assert texts(board.legal_moves) == split("h1-g1 h1-g2 h1-h2")
    with pytest.raises(IllegalMoveError, match="immobilized by the Immobilizer on b2"):
        board.push_text("a1@a3")


def test_f20_protected_enemy_is_a_mount_but_not_a_victim() -> None:
    board = Board("fugue", fen="7k/4s3/3p4/3P4/3P4/8/8/K7 w")
    assert moves_of(board, "d4") == split("d4-c3 d4-c4 d4-c5 d4-d3 d4-e3 d4-e4 d4-e5")
    assert moves_of(board, "d5") == split("d5-c4 d5-c5 d5-c6 d5-d3 d5-d7 d5-e4 d5-e5 d5-e6")


def test_capturing_the_king_by_replacement_ends_the_game() -> None:
    board = Board("fugue", fen="8/8/8/8/8/8/1k6/KQ6 w")
    board.push_text("b1xb2")
    outcome = board.outcome()
    assert outcome is not None and outcome.winner == WHITE
    board.pop()
    assert board.outcome() is None


def test_position_without_king_is_playable_until_a_move_is_made() -> None:
    board = Board("fugue", fen="8/8/8/8/8/8/1p6/K7 w")
    assert board.outcome() is None
    assert "a1xb2" in texts(board.legal_moves)


def test_pawn_on_last_rank_may_promote_later_moving_along_it() -> None:
    board = Board("fugue", fen="k6P/8/8/8/8/8/8/K7 w")
    moves = moves_of(board, "h8")
    assert {"h8-g8", "h8-g8=Q", "h8-g8=W"} <= moves
    assert "h8-h7" in moves and "h8-h7=Q" not in moves  # only moves ending on rank 8 promote
