"""Fugue's annotations on the rules of record's section 5.1 positions with freezes and shields."""

from __future__ import annotations

from exochess import Board, parse_square, square_name
from exochess.annotations import FROZEN, SHIELDED


def marks(fen: str) -> dict[tuple[str, str], list[str]]:
    """(square, kind) -> the squares of the pieces causing it."""
    return {
        (square_name(m.square), m.kind): [square_name(s) for s in m.by]
        for m in Board("fugue", fen=fen).annotations().marks
    }


def test_f04_the_queen_next_to_the_immobilizer_is_frozen_not_the_immobilizer() -> None:
    board = Board("fugue", fen="7k/8/5I2/4i3/3Q4/8/8/K7 w")
    notes = board.annotations()
    # Immobilizers do not freeze each other: f6 stays free, d4 is frozen by e5
    assert marks(board.fen()) == {("d4", FROZEN): ["e5"]}
    assert notes.why_stuck(parse_square("d4")) == "the Queen on d4 is immobilized by the Immobilizer on e5"
    assert notes.why_stuck(parse_square("f6")) is None


def test_f05_and_f07_a_frozen_piece_still_mounts_and_spots() -> None:
    assert marks("7k/8/8/3i4/3Q4/3P4/8/K7 w") == {("d4", FROZEN): ["d5"]}
    assert marks("7k/8/8/4i3/3Q4/8/8/K3A3 w") == {("d4", FROZEN): ["e5"]}


def test_f08_the_shield_protects_its_neighbours_not_itself() -> None:
    found = marks("6k1/8/1s6/p1pW4/1K6/8/8/Q7 w")
    assert found == {("a5", SHIELDED): ["b6"], ("c5", SHIELDED): ["b6"]}
    reason = Board("fugue", fen="6k1/8/1s6/p1pW4/1K6/8/8/Q7 w").annotations().marks[0].reason
    assert reason == (
        "the Cannon Pawn on a5 is protected by the Shield on b6: it cannot be captured "
        "(it can still be swapped)"
    )


def test_f15_every_piece_of_a_side_without_moves_says_why() -> None:
    board = Board("fugue", fen="7k/8/8/8/8/8/1i6/K7 w")
    notes = board.annotations()
    assert board.is_game_over()
    assert notes.stuck == ((parse_square("a1"), "the King on a1 is immobilized by the Immobilizer on b2"),)


def test_f17_a_frozen_shield_still_protects() -> None:
    assert marks("6k1/2I5/1s6/p7/8/8/8/Q6K w") == {("a5", SHIELDED): ["b6"], ("b6", FROZEN): ["c7"]}


def test_f19_a_frozen_archer_is_stuck() -> None:
    notes = Board("fugue", fen="7k/8/8/8/8/p7/1i6/A6K w").annotations()
    assert notes.why_stuck(parse_square("a1")) == "the Archer on a1 is immobilized by the Immobilizer on b2"
    assert notes.why_stuck(parse_square("h1")) is None


def test_f20_a_protected_pawn_is_marked() -> None:
    assert marks("7k/4s3/3p4/3P4/3P4/8/8/K7 w") == {("d6", SHIELDED): ["e7"]}


def test_a_frozen_piece_of_the_side_not_to_move_is_marked_too() -> None:
    assert marks("7k/8/8/4i3/3Q4/8/8/K7 b") == {("d4", FROZEN): ["e5"]}
