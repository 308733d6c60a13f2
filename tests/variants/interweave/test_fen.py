"""Interweave FEN fields: en passant, reserves, vchess's form, and clear errors."""

from __future__ import annotations

import pytest

from exochess import Board, FenError
from exochess.pgn import PgnError, read_game, write_game

START = "rbnkknbr/pppppppp/8/8/8/8/PPPPPPPP/RBNKKNBR w - 000000"


def fen_of(fen: str) -> str:
    return Board("interweave", fen=fen).fen()


def test_starting_position_is_the_default() -> None:
    assert Board("interweave").fen() == START
    assert Board("Interweave").fen() == START


def test_placement_and_side_only_reads_empty_fields() -> None:
    assert fen_of("rbnkknbr/pppppppp/8/8/8/8/PPPPPPPP/RBNKKNBR w") == START
    assert fen_of("8/8/4b3/3nK3/8/8/8/8 b") == "8/8/4b3/3nK3/8/8/8/8 b - 000000"


def test_rules_form_round_trips() -> None:
    for fen in (
        START,
        "3kk3/8/8/8/2pP4/8/8/3KK3 b c3,d4 000000",
        "8/7R/3P3n/N1N5/7b/4b2P/4P3/kk3KK1 b - 000200",
        "kk6/4pR2/8/3Pp3/8/8/8/6KK w d6,e5 010000",
        "3kk3/2P5/4P3/8/8/8/8/3KK3 w - 123456",
    ):
        assert fen_of(fen) == fen


def test_reserve_counts_above_nine_round_trip() -> None:
    # A count above nine is written as a number in brackets; the others stay single digits.
    for fen in (
        "kk6/8/8/8/8/8/3r4/K2K4 w - 000[10]00",
        "3kk3/8/8/8/2pP4/8/8/3KK3 b c3,d4 [31]9[12]0[20]1",
        START.replace("000000", "[29]00[29]00"),
    ):
        assert fen_of(fen) == fen
    # A bracketed digit is read, and written without brackets.
    assert fen_of("kk6/8/8/8/8/8/8/K1K5 w - 0[7]0000") == "kk6/8/8/8/8/8/8/K1K5 w - 070000"
    # Every count has its own hash key, up to the largest.
    fens = [f"kk6/8/8/8/8/8/8/K1K5 w - 0000[{n}]0" for n in range(10, 32)]
    assert len({Board("interweave", fen=fen).zobrist_hash() for fen in fens}) == 22


def test_vchess_form() -> None:
    # vchess writes '<moves> <ep> <captured>'; its ep field is the passed square and the arrival file.
    assert fen_of("rbnkknbr/pppppppp/8/8/8/8/PPPPPPPP/RBNKKNBR w 0 - 000000") == START
    assert fen_of("3kk3/8/8/8/2pP4/8/8/3KK3 b 7 c3,d 000000") == "3kk3/8/8/8/2pP4/8/8/3KK3 b c3,d4 000000"
    assert fen_of("kk6/4pR2/8/3Pp3/8/8/8/6KK w 12 d6,e 010000") == "kk6/4pR2/8/3Pp3/8/8/8/6KK w d6,e5 010000"
    # The arrival file may sit on either side of the passed square.
    assert fen_of("3kk3/8/8/8/P7/8/8/3KK3 b 1 b3,a 000000") == "3kk3/8/8/8/P7/8/8/3KK3 b b3,a4 000000"


def test_vchess_ep_is_understood_by_the_generator() -> None:
    board = Board("interweave", fen="3kk3/8/8/8/2pP4/8/8/3KK3 b 7 c3,d 000000")
    assert [str(m) for m in board.legal_moves] == ["c4xc2(d4)"]


def test_ep_field_changes_the_hash() -> None:
    with_ep = Board("interweave", fen="3kk3/8/8/8/2pP4/8/8/3KK3 b c3,d4 000000")
    without = Board("interweave", fen="3kk3/8/8/8/2pP4/8/8/3KK3 b - 000000")
    assert with_ep.zobrist_hash() != without.zobrist_hash()
    reserves = Board("interweave", fen="3kk3/8/8/8/2pP4/8/8/3KK3 b - 000001")
    assert reserves.zobrist_hash() != without.zobrist_hash()


@pytest.mark.parametrize(
    ("fen", "message"),
    [
        (START.replace("000000", "00000"), "six counts"),
        (START.replace("000000", "0000000"), "six counts"),
        (START.replace("000000", "00a000"), "six counts"),
        (START.replace(" - ", " x "), "en-passant"),
        (START + " extra", "move counter"),
        (START + " 0 1", "two fields"),
        ("rbnkknbr/pppppppp/8/8/8/8/PPPPPPPP/RBNKKNBR w -", "two fields"),
        ("rbnkknbr/pppppppp/8/8/8/8/PPPPPPPP/RBNKKNBR w x - 000000", "move counter"),
        # ep square that no double step can have produced
        ("3kk3/8/8/8/2pP4/8/8/3KK3 b c4,d4 000000", "rank 3"),
        ("3kk3/8/8/8/2pP4/8/8/3KK3 w c3,d4 000000", "rank 6"),
        ("3kk3/8/8/8/2pP4/8/8/3KK3 b c3,e4 000000", "no double step"),
        ("3kk3/8/8/8/2pP4/8/8/3KK3 b c3,c4 000000", "no double step"),
        ("3kk3/8/8/8/2p5/8/8/3KK3 b c3,d4 000000", "no White pawn on d4"),
        ("3kk3/8/8/8/2pN4/8/8/3KK3 b c3,d4 000000", "no White pawn on d4"),
        ("3kk3/8/8/8/2pP4/2p5/8/3KK3 b c3,d4 000000", "c3 must be empty"),
        ("3kk3/8/8/8/2pP4/8/1K6/3KK3 b c3,d4 000000", "b2 must be empty"),
        ("3kk3/8/8/8/P7/8/8/3KK3 b a3,b4 000000", "no double step"),
        ("3kk3/8/8/8/2pP4/8/8/3KK3 b c3 000000", "mid,dest"),
        ("3kk3/8/8/8/2pP4/8/8/3KK3 b c3,z9 000000", "not a square"),
        ("3kk3/8/8/8/2pP4/8/8/3KK3 b c3,d4,e5 000000", "mid,dest"),
        ("3kk3/8/8/8/2pP4/8/8/3KK3 b 3 c3,i 000000", "not a square"),
        ("3kkk2/8/8/8/8/8/8/3KK3 w - 000000", "3 Kings"),
        ("8/8/8/8/8/8/8/8 w - 000000 0", "move counter"),
        # reserve counts above nine: two digits in brackets, at most 31 with the board's pieces
        (START.replace("000000", "000[100]00"), "six counts"),
        (START.replace("000000", "000[1000"), "six counts"),
        (START.replace("000000", "000[]000"), "six counts"),
        (START.replace("000000", "00[10]000[10]"), "six counts"),
        (START.replace("000000", "000[40]00"), "at most 31, not 40"),
        (START.replace("000000", "000[30]00"), "Black's Smashers, 2 on the board and 30 in reserve, make 32"),
        ("kk6/8/8/8/8/8/8/NNNK1K2 w - 0[29]0000", "White's Leapers, 3 on the board and 29 in reserve"),
    ],
)
def test_malformed_fields_are_rejected(fen: str, message: str) -> None:
    with pytest.raises(FenError, match=message):
        Board("interweave", fen=fen)


def test_double_step_sets_and_the_next_action_clears_ep() -> None:
    board = Board("interweave")
    board.push_text("b2-d4")
    assert board.fen() == "rbnkknbr/pppppppp/8/8/3P4/8/P1PPPPPP/RBNKKNBR b c3,d4 000000"
    board.push_text("g7-f6")
    assert board.fen().split()[2] == "-"
    board.pop()
    assert board.fen().split()[2] == "c3,d4"


def test_pgn_keeps_reserve_counts_above_nine() -> None:
    start = "kk6/8/8/8/8/8/3r4/K2K4 w - 000900"
    text = write_game(["d1xd3(d2)"], variant="interweave", fen=start)
    game = read_game(text)
    board = Board(game.variant, fen=game.fen)
    for move in game.moves:
        board.push(move)
    assert board.fen() == "kk6/8/8/8/8/3K4/8/K7 b - 000[10]00"
    # A game set up with the bracket form: its FEN tag reads and writes back unchanged.
    later = "kk6/8/8/8/8/3K4/2r5/K7 w - 000[10]00"
    game = read_game(write_game([], variant="interweave", fen=later))
    assert game.fen == later
    assert f'[FEN "{later}"]' in write_game(game)


def test_pgn_with_an_impossible_reserve_count_is_refused() -> None:
    text = '[Variant "Interweave"]\n[FEN "kk6/8/8/8/8/8/8/K1K5 w - 000[40]00"]\n\n*\n'
    with pytest.raises(PgnError, match="at most 31, not 40"):
        read_game(text)


def test_extra_delta_is_the_xor_of_the_two_extra_hashes() -> None:
    # The board updates the key with extra_delta (the compiled build's shortcut when only the
    # en-passant pair changes); it must equal hashing both states in full.
    variant = Board("interweave").variant
    eps = [0, (0x23 << 8) | 0x34, (0x53 << 8) | 0x44, (0x56 << 8) | 0x45]  # none, c3,d4 ...
    reserves = [0, 1, (3 << 5) | 2, 31 << 25]
    states = [(ep, r) for ep in eps for r in reserves]
    for before in states:
        for after in states:
            expected = variant.extra_hash(before) ^ variant.extra_hash(after)
            assert variant.extra_delta(before, after) == expected
            assert variant.extra_delta(before, (after[0], after[1])) == expected  # a copy
    assert variant.extra_delta(states[5], states[5]) == 0
    with pytest.raises(TypeError):
        variant.extra_delta((0, 0), "junk")
