"""A FEN rank that describes more squares than the board has is an error naming the rank,
wherever the FEN comes in (library, CLI, PGN import, engine protocol); so is a run of empty
squares written with more digits than any board needs (thousands of them used to crash
``int``)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from exochess import Board
from exochess.engine.protocol import EngineProtocol
from exochess.errors import FenError
from exochess.pgn import PgnError, read_game

TOO_LONG = [
    # (variant, fen, rank the message names)
    ("fugue", "8K/8/8/8/8/8/8/k7 w", 8),
    ("fugue", "8/8/8/8/8/8/PPPPPPPPP/k6K w", 2),
    ("fugue", "7PP/8/8/8/8/8/8/k6K w", 8),
    ("interweave", "k2k2KK/8/8/8/8/8/8/8P w", 1),
    ("rebelfury", "12F/12/12/12/12/12/12/12/12/12/12/f11 w", 12),
]

HUGE_RUN = [
    ("fugue", "8/8/8/8/8/8/8/K" + "9" * 5000 + " w"),
    ("fugue", "8/8/8/8/8/8/8/" + "1" * 5000 + " w"),
    ("rebelfury", "999/12/12/12/12/12/12/12/12/12/12/12 w"),
    ("interweave", "9/8/8/8/8/8/8/8 w"),
]


@pytest.mark.parametrize(("variant", "fen", "rank"), TOO_LONG)
def test_pieces_past_the_end_of_a_rank_are_an_error_naming_it(variant: str, fen: str, rank: int) -> None:
    with pytest.raises(FenError, match=rf"rank {rank} \(.*\) describes more than \d+ squares"):
        Board(variant, fen=fen)


@pytest.mark.parametrize(("variant", "fen"), HUGE_RUN)
def test_a_run_of_empty_squares_with_many_digits_is_a_fen_error(variant: str, fen: str) -> None:
    with pytest.raises(FenError, match="describes more than"):
        Board(variant, fen=fen)


def test_a_board_stays_as_it_was_after_a_refused_fen() -> None:
    board = Board("fugue")
    before = board.fen()
    with pytest.raises(FenError):
        board.set_fen("8K/8/8/8/8/8/8/k7 w")
    assert board.fen() == before


def test_full_and_short_ranks_still_read() -> None:
    # exactly full ranks and a short rank padded on the right keep working
    assert Board("rebelfury", fen="12/12/12/12/12/12/12/12/12/12/12/F10f w").fen().endswith("F10f w")
    assert Board("fugue", fen="k7/8/8/8/8/8/8/1K w").fen() == "k7/8/8/8/8/8/8/1K6 w"


def test_cli_show_refuses_a_rank_too_long_without_a_traceback() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "exochess.cli.main", "show", "fugue", "--fen", "8K/8/8/8/8/8/8/k7 w"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2, result.stdout
    assert "rank 8" in result.stderr and "Traceback" not in result.stderr
    huge_fen = "8/8/8/8/8/8/8/" + "9" * 5000 + " w"
    huge = subprocess.run(
        [sys.executable, "-m", "exochess.cli.main", "show", "fugue", "--fen", huge_fen],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert huge.returncode == 2 and "rank 1" in huge.stderr and "Traceback" not in huge.stderr


def test_pgn_import_refuses_a_rank_too_long() -> None:
    text = '[Variant "Fugue"]\n[SetUp "1"]\n[FEN "8K/8/8/8/8/8/8/k7 w"]\n\n*\n'
    with pytest.raises(PgnError, match="rank 8"):
        read_game(text)


def test_engine_protocol_answers_an_error_and_keeps_its_position() -> None:
    sent: list[str] = []
    session = EngineProtocol(sent.append)
    session.handle("position fen k7/8/8/8/8/8/8/K7 w")
    session.handle("position fen 8K/8/8/8/8/8/8/k7 w")
    session.handle("position fen 8/8/8/8/8/8/8/" + "9" * 5000 + " w")
    assert [line for line in sent if "error" in line and "rank 8" in line]
    assert [line for line in sent if "error" in line and "rank 1" in line]
    assert session.board.fen() == "k7/8/8/8/8/8/8/K7 w"
