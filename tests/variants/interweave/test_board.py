"""Interweave through the public board API: stepwise chains, copies mid-turn, error messages."""

from __future__ import annotations

import subprocess
import sys

import pytest

from exochess import Board, IllegalMoveError

CHAIN = "8/3p1p2/2p1p3/3p4/3K4/K7/8/6kk w - 000000"


def test_stepwise_chain_and_copy_mid_turn() -> None:
    board = Board("interweave", fen=CHAIN)
    assert [str(a) for a in board.legal_actions()] == ["d4xd6(d5)"]
    assert board.push_action("d4xd6(d5)") is None
    assert board.turn_open
    options = {"d6xb6(c6)", "d6xd8(d7)", "d6xf6(e6)"}
    assert {str(a) for a in board.legal_actions()} == options
    trial = board.copy()
    assert {str(a) for a in trial.legal_actions()} == options
    assert {str(a) for a in board.copy(stack=False).legal_actions()} == options
    move = board.push_action("d6xf6(e6)")
    assert move is None
    move = board.push_action("f6xf8(f7)")
    assert str(move) == "d4xd6(d5),d6xf6(e6),f6xf8(f7)"
    assert board.fen() == "5K2/3p4/2p5/8/8/K7/8/6kk b - 000000"
    assert str(board.pop_action()) == "f6xf8(f7)"
    assert board.turn_open
    board.cancel_turn()
    assert board.fen() == Board("interweave", fen=CHAIN).fen()


def test_terminal_play_accepts_a_chain_action_by_action() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "exochess.cli.main", "play", "interweave", "--fen", CHAIN],
        input="d4xd6(d5)\nd6xb6(c6)\nfen\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0
    assert "Last move: d4xd6(d5),d6xb6(c6)" in result.stdout
    assert "8/3p1p2/1K2p3/8/8/K7/8/6kk b - 000000" in result.stdout


def test_cli_moves_and_perft() -> None:
    def run(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "exochess.cli.main", *args], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert run("perft", "interweave", "2").strip() == "nodes 888"
    assert run("moves", "interweave", "--fen", CHAIN).split() == [
        "d4xd6(d5),d6xb6(c6)",
        "d4xd6(d5),d6xd8(d7)",
        "d4xd6(d5),d6xf6(e6),f6xf8(f7)",
    ]


@pytest.mark.parametrize(
    ("fen", "move", "message"),
    [
        # a quiet move while a capture exists
        ("kk6/8/8/4p3/3pBp2/1p6/1P5K/6K1 w - 000000", "h2-g3", "capturing is compulsory"),
        # stopping a chain early
        (CHAIN, "d4xd6(d5)", r"chain must go on: the piece on d6 can still capture \(d6xb6\(c6\)"),
        # going on after the chain ended
        ("8/8/4b3/3nK3/8/8/8/8 w - 000000", "e5xc5(d5),c5xc7(c6)", "turn ends after e5xc5"),
        # reaching the last rank without promoting
        ("3kk3/2P5/8/8/8/8/8/3KK3 w - 100000", "c7-b8", "must promote"),
        # promoting to a piece that is not in reserve
        ("3kk3/2P5/8/8/8/8/8/3KK3 w - 100000", "c7-b8=N", "no Leaper in reserve"),
        ("3kk3/2P5/8/8/8/8/8/3KK3 w - 100000", "c7-b8=Q", "only to a Smasher"),
        ("3kk3/8/8/8/8/2P5/8/3KK3 w - 100000", "c3-b4=R", "last two ranks"),
    ],
)
def test_illegal_moves_are_explained(fen: str, move: str, message: str) -> None:
    board = Board("interweave", fen=fen)
    with pytest.raises(IllegalMoveError, match=message):
        board.parse_move(move)


def test_game_over_mid_chain_is_reported() -> None:
    board = Board("interweave", fen="8/8/4p3/3k4/3K4/8/8/K6k w - 000000")
    with pytest.raises(IllegalMoveError, match="turn ends after d4xd6"):
        board.parse_move("d4xd6(d5),d6xf6(e6)")
