"""The Interweave test positions I-01 ... I-22 of the rules of record (section 5.2)."""

from __future__ import annotations

import pytest

from exochess import BLACK, WHITE, Board, IllegalMoveError, Termination


def words(text: str) -> set[str]:
    return set(text.split())


def turns(fen: str) -> set[str]:
    return {str(m) for m in Board("interweave", fen=fen).legal_moves}


def quiet_actions(fen: str, square: str) -> set[str]:
    """Non-capturing actions of one piece, computed with the obligation switched off."""
    from exochess.rawmove import to_move
    from exochess.variants.interweave import Interweave

    board = Board("interweave", fen=fen)
    variant = board.variant
    assert isinstance(variant, Interweave)
    return {str(to_move(m)) for m in variant.quiet_moves(board) if m[0] == parse(square)}


def capture_actions(fen: str, square: str) -> set[str]:
    """Capturing first actions of one piece (whether or not they continue)."""
    board = Board("interweave", fen=fen)
    return {str(m.actions[0]) for m in board.legal_moves if m.from_square == parse(square) and m.is_capture()}


def parse(name: str) -> int:
    from exochess import parse_square

    return parse_square(name)


def test_i01_initial_position() -> None:
    board = Board("interweave")
    assert board.fen() == "rbnkknbr/pppppppp/8/8/8/8/PPPPPPPP/RBNKKNBR w - 000000"
    expected = words(
        "a2-b3 a2-c4 b2-a3 b2-c3 b2-d4 c2-b3 c2-d3 c2-a4 c2-e4 d2-c3 d2-e3 d2-b4 d2-f4 e2-d3 "
        "e2-f3 e2-c4 e2-g4 f2-e3 f2-g3 f2-d4 f2-h4 g2-f3 g2-h3 g2-e4 h2-g3 h2-f4 c1-a5 c1-e5 "
        "f1-d5 f1-h5"
    )
    assert turns(board.fen()) == expected
    assert len(board.legal_moves) == 30


def test_i02_king_non_captures() -> None:
    assert quiet_actions("8/8/4b3/3nK3/8/8/8/8 w", "e5") == {"e5-d6", "e5-f6", "e5-f4", "e5-d4"}


def test_i03_king_captures() -> None:
    assert turns("8/8/4b3/3nK3/8/8/8/8 w") == {"e5xc5(d5)", "e5xe7(e6)"}


def test_i04_smasher_non_captures() -> None:
    assert quiet_actions("8/8/5p2/8/8/8/1R3p2/8 w", "b2") == words(
        "b2-a1 b2-c1 b2-d2 b2-a3 b2-b4 b2-c3 b2-d4 b2-e5 b2-b6 b2-b8"
    )
    # No capture at all: f2 is on b2's colour at even distance, f6 is off every line.
    assert turns("8/8/5p2/8/8/8/1R3p2/8 w") == quiet_actions("8/8/5p2/8/8/8/1R3p2/8 w", "b2")


def test_i05_smasher_captures() -> None:
    assert turns("8/1p6/8/8/8/8/1R4p1/8 w") == {"b2xb6(b7)", "b2xf2(g2)"}


def test_i06_leaper_non_captures() -> None:
    fen = "8/p7/5p2/8/8/1P6/8/N5p1 w - 000000"
    knight = words("a1-e3 a1-c1 a1-e1 a1-a3 a1-a5 a1-b2 a1-c3 a1-d4 a1-e5")
    assert quiet_actions(fen, "a1") == knight
    assert turns(fen) == knight | {"b3-a4", "b3-c4"}
    assert len(turns(fen)) == 11


def test_i06_seed_diagram_with_short_rank() -> None:
    assert Board("interweave", fen="8/p7/5p2/8/8/1P/8/N5p1 w").fen() == "8/p7/5p2/8/8/1P6/8/N5p1 w - 000000"


def test_i07_leaper_captures() -> None:
    assert turns("8/8/8/8/p7/8/2p5/N6b w - 000000") == {"a1xe3(c2)", "a1xa5(a4)", "a1xa7(a4)"}


def test_i08_remover() -> None:
    assert turns("8/8/8/4p3/4Bp2/8/8/8 w - 000000") == {"e4@(e5,f4)"}


def test_i09_pawn_non_captures() -> None:
    assert turns("8/8/3P4/8/8/8/1P6/8 w - 000000") == {"b2-a3", "b2-c3", "b2-d4", "d6-c7", "d6-e7"}


I10 = "8/Nr5R/2rP3n/2N5/7b/4b2P/4P3/kk3KK1 w - 000000"
I10_TURNS = {
    "d6xc7(b7,c6)": "000200",
    "e2xe4(e3)": "000001",
    "h3xh5(h4,h6)": "000011",
    "a7xc7(b7)": "000100",
    "a7xe7(b7),e7xa5(c6)": "000200",
    "a7xg7(b7)": "000100",
    "a7xe5(c6)": "000100",
    "c5xc7(c6)": "000100",
}


def test_i10_pawn_captures_full_turn_list() -> None:
    assert turns(I10) == set(I10_TURNS)
    # The seed diagram itself (no Kings): the pawn's capture destinations.
    seed = Board("interweave", fen="8/Nr5R/2rP3n/2N5/7b/4b2P/4P3/8 w")
    pawns = {m.actions[0].to_square for m in seed.legal_moves if seed.squares[m.from_square] == 5}
    assert pawns == {parse("c7"), parse("e4"), parse("h5")}


@pytest.mark.parametrize("move", sorted(I10_TURNS))
def test_i10_reserves_after_each_turn(move: str) -> None:
    board = Board("interweave", fen=I10)
    board.push_text(move)
    assert board.fen().split()[-1] == I10_TURNS[move]


def test_i11_en_passant() -> None:
    fen = "3kk3/8/8/8/2p5/8/1P6/3KK3 w - 000000"
    assert turns(fen) == words("b2-a3 b2-c3 b2-d4 d1-c2 d1-e2 e1-d2 e1-f2")
    board = Board("interweave", fen=fen)
    board.push_text("b2-d4")
    assert board.fen() == "3kk3/8/8/8/2pP4/8/8/3KK3 b c3,d4 000000"
    assert {str(m) for m in board.legal_moves} == {"c4xc2(d4)"}
    without = "3kk3/8/8/8/2pP4/8/8/3KK3 b - 000000"
    assert turns(without) == words("c4-b3 c4-d3 d8-c7 d8-e7 e8-d7 e8-f7")


def test_i12_promotion_and_reserves() -> None:
    fen = "3kk3/2P5/4P3/8/8/8/8/3KK3 w - 100000"
    assert turns(fen) == words("c7-b8=R e6-d7 e6-d7=R e6-f7 e6-f7=R d1-c2 d1-e2 e1-d2 e1-f2")
    board = Board("interweave", fen=fen)
    board.push_text("c7-b8=R")
    assert board.fen().split()[-1] == "000000"
    empty = "3kk3/2P5/4P3/8/8/8/8/3KK3 w - 000000"
    assert turns(empty) == words("e6-d7 e6-f7 d1-c2 d1-e2 e1-d2 e1-f2")


def test_i13_king_capture_chain_with_branches() -> None:
    fen = "8/3p1p2/2p1p3/3p4/3K4/K7/8/6kk w - 000000"
    assert turns(fen) == {
        "d4xd6(d5),d6xb6(c6)",
        "d4xd6(d5),d6xd8(d7)",
        "d4xd6(d5),d6xf6(e6),f6xf8(f7)",
    }
    board = Board("interweave", fen=fen)
    with pytest.raises(IllegalMoveError, match="chain must go on"):
        board.push_text("d4xd6(d5)")


def test_i14_remover_among_other_captures() -> None:
    assert turns("kk6/8/8/4p3/3pBp2/1p6/1P5K/6K1 w - 000000") == {"e4@(d4,e5,f4)", "b2xb4(b3)"}


def test_i15_smasher_approach() -> None:
    fen = "6kk/8/6K1/7K/8/8/p7/R2p4 w - 000000"
    assert turns(fen) == {"a1xc1(d1)"}
    assert quiet_actions(fen, "a1") | capture_actions(fen, "a1") == words(
        "a1xc1(d1) a1-b2 a1-c3 a1-d4 a1-e5 a1-f6 a1-g7"
    )


def test_i16_leaper_long_leap_and_double_knight() -> None:
    fen = "6kk/8/3p4/5p2/1p1Np3/8/8/K2p3K w - 000000"
    quiet = {f"d4-{t}" for t in words("a7 b6 c5 e5 f6 g7 e3 f2 g1 c3 b2 d2 h2 f8 b8")}
    assert quiet_actions(fen, "d4") == quiet
    assert capture_actions(fen, "d4") == {"d4xf4(e4)", "d4xh4(e4)", "d4xh6(f5)"}
    assert turns(fen) == {"d4xf4(e4),f4xf6(f5)", "d4xf4(e4),f4xf8(f5)", "d4xh4(e4)", "d4xh6(f5)"}


def test_i17_custodian_capture() -> None:
    assert turns("8/3P4/3p4/1pp1pR2/2Pp4/8/8/K5kk w - 000000") == {"c4xd5(d6,e5)", "c4xc6(c5)"}


def test_i18_king_capture_ends_the_game_mid_chain() -> None:
    board = Board("interweave", fen="8/8/4p3/3k4/3K4/8/8/K6k w - 000000")
    assert {str(m) for m in board.legal_moves} == {"d4xd6(d5)"}
    board.push_text("d4xd6(d5)")
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.termination == Termination.ROYAL_CAPTURE
    assert outcome.winner == WHITE
    assert board.squares[parse("e6")] == -5  # the continuation d6xf6(e6) was not played


def test_i19_same_colour_enemy_is_immune_to_the_smasher() -> None:
    assert turns("kk6/8/8/8/8/7p/8/K6R w - 000000") == words(
        "a1-b2 h1-b1 h1-d1 h1-f1 h1-g2 h1-f3 h1-e4 h1-d5 h1-c6 h1-b7"
    )


def test_i20_stalemate_loses() -> None:
    board = Board("interweave", fen="kk6/8/8/8/8/r6r/rr4rr/Krr2rrK w - 000000")
    assert not board.legal_moves
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.termination == Termination.NO_LEGAL_MOVES
    assert outcome.winner == BLACK


def test_i21_repetition_loses() -> None:
    board = Board("interweave", fen="3kk3/8/8/8/8/8/8/3KK3 w - 000000")
    moves = ["d1-c2", "d8-c7", "c2-d1", "c7-d8", "d1-c2", "d8-c7", "c2-d1", "c7-d8"]
    for text in moves[:-1]:
        board.push_text(text)
        assert board.outcome() is None
    board.push_text(moves[-1])
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.termination == Termination.REPETITION
    assert outcome.winner == WHITE


def test_i22_reserve_bookkeeping() -> None:
    board = Board("interweave", fen=I10)
    board.push_text("a7xe7(b7),e7xa5(c6)")
    assert board.fen() == "8/7R/3P3n/N1N5/7b/4b2P/4P3/kk3KK1 b - 000200"
