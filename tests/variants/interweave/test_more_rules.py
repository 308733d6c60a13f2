"""Interweave rules beyond the RULES test list: combinations the generator must get right."""

from __future__ import annotations

from exochess import Board, Termination

EP_PROMOTION = "kk6/4pR2/8/3Pp3/8/8/8/6KK w d6,e5 010000"
PROMOTION_CHAIN = "1n6/4p3/4P3/8/8/8/8/K1K2kk1 w - 101000"


def turns(fen: str) -> set[str]:
    return {str(m) for m in Board("interweave", fen=fen).legal_moves}


def fen_after(fen: str, move: str) -> str:
    board = Board("interweave", fen=fen)
    board.push_text(move)
    return board.fen()


def test_en_passant_with_custodian_capture_and_optional_promotion() -> None:
    assert turns(EP_PROMOTION) == {"d5xd7(e5,e7)", "d5xd7(e5,e7)=N"}
    assert fen_after(EP_PROMOTION, "d5xd7(e5,e7)=N") == "kk6/3N1R2/8/8/8/8/8/6KK b - 000000"
    assert fen_after(EP_PROMOTION, "d5xd7(e5,e7)") == "kk6/3P1R2/8/8/8/8/8/6KK b - 010000"


def test_en_passant_right_lasts_one_turn() -> None:
    board = Board("interweave", fen="kk6/2p5/8/3P4/8/8/8/6KK b - 000000")
    board.push_text("c7-e5")
    assert board.fen() == "kk6/8/8/3Pp3/8/8/8/6KK w d6,e5 000000"
    assert turns(board.fen()) == {"d5xd7(e5)"}
    # Without the right (another turn in between) the pawn on e5 is safe.
    assert "d5xd7(e5)" not in turns("kk6/8/8/3Pp3/8/8/8/6KK w - 000000")


def test_compulsory_promotion_then_the_new_piece_continues() -> None:
    assert turns(PROMOTION_CHAIN) == {"e6xe8(e7)=R,e8xc8(b8)", "e6xe8(e7)=B"}
    assert fen_after(PROMOTION_CHAIN, "e6xe8(e7)=R,e8xc8(b8)") == "2R5/8/8/8/8/8/8/K1K2kk1 b - 001010"
    assert fen_after(PROMOTION_CHAIN, "e6xe8(e7)=B") == "1n2B3/8/8/8/8/8/8/K1K2kk1 b - 100000"


def test_promoted_remover_fires_in_the_chain() -> None:
    # The short leap d6xd8(d7) must promote; as a Remover on d8 the piece then removes c8 and e8.
    fen = "2n1n3/3p4/3P4/8/8/8/8/K1K2kk1 w - 001000"
    assert turns(fen) == {"d6xd8(d7)=B,d8@(c8,e8)"}
    assert fen_after(fen, "d6xd8(d7)=B,d8@(c8,e8)") == "3B4/8/8/8/8/8/8/K1K2kk1 b - 000020"


def test_pawn_without_reserve_cannot_reach_the_last_rank() -> None:
    # The short leap would land on the last rank: impossible without a reserve, so no capture exists.
    assert turns("6kk/3p4/3P4/8/8/8/8/K1K5 w - 000000") == {
        "d6-c7",
        "d6-e7",
        "a1-b2",
        "c1-b2",
        "c1-d2",
    }
    assert turns("6kk/3p4/3P4/8/8/8/8/K1K5 w - 010000") == {"d6xd8(d7)=N"}


def test_double_step_with_custodian_capture() -> None:
    # b2-d4 lands next to the black pawn e4, which has the White Smasher f4 behind it:
    # the double step captures e4 and is compulsory.
    fen = "kk6/8/8/8/4pR2/8/1P6/K1K5 w - 000000"
    assert "b2xd4(e4)" in turns(fen)
    assert all("x" in t for t in turns(fen))
    # A capturing double step still leaves an en-passant right when it ends the turn.
    board = Board("interweave", fen=fen)
    board.push_text("b2xd4(e4)")
    assert board.fen().split()[2] == "c3,d4"


def test_remover_takes_a_king_and_ends_the_game() -> None:
    board = Board("interweave", fen="8/8/8/3k4/2kB4/8/8/K1K5 w - 000000")
    assert turns(board.fen()) == {"d4@(c4,d5)"}
    board.push_text("d4@(c4,d5)")
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.termination == Termination.ROYAL_CAPTURE
    assert outcome.winner


def test_chains_continue_in_diagrams_without_kings() -> None:
    # No black King at all: capturing pieces never ends the game, the chain runs on.
    assert turns("8/3p1p2/2p1p3/3p4/3K4/8/8/8 w") == {
        "d4xd6(d5),d6xb6(c6)",
        "d4xd6(d5),d6xd8(d7)",
        "d4xd6(d5),d6xf6(e6),f6xf8(f7)",
    }


def test_reserve_counts_above_nine_are_kept() -> None:
    # The tenth captured Smasher is counted and written in brackets; nothing is lost.
    board = Board("interweave", fen="kk6/8/8/8/8/8/3r4/K2K4 w - 000900")
    assert turns(board.fen()) == {"d1xd3(d2)"}
    board.push_text("d1xd3(d2)")
    assert board.fen().split()[3] == "000[10]00"
    board.pop()
    assert board.fen().split()[3] == "000900"
    board = Board("interweave", fen="kk6/8/8/8/8/8/3r4/K2K4 w - 000800")
    board.push_text("d1xd3(d2)")
    assert board.fen().split()[3] == "000900"


def test_a_promotion_uses_a_count_above_nine() -> None:
    # Black Smashers in reserve above nine: promoting uses one, and the count is a digit again.
    board = Board("interweave", fen="kk6/8/8/8/8/8/8/K1K5 b - 000[12]00")
    assert board.fen() == "kk6/8/8/8/8/8/8/K1K5 b - 000[12]00"
    board = Board("interweave", fen="kk6/8/8/8/8/8/2p5/K1K5 b - 000[10]00")
    assert "c2-b1=R" in turns(board.fen())
    board.push_text("c2-b1=R")
    assert board.fen() == "kk6/8/8/8/8/8/8/KrK5 w - 000900"
