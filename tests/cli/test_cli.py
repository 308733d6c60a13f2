"""The exochess command as a user runs it (a real subprocess)."""

from __future__ import annotations

import subprocess
import sys

import pytest


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "exochess.cli.main", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_moves_lists_canonical_text() -> None:
    result = run("moves", "fugue")
    assert result.returncode == 0
    assert result.stdout.split()[:3] == ["a2-a3", "a2-b3", "b2-a3"]
    assert len(result.stdout.split()) == 22


def test_moves_with_fen() -> None:
    result = run("moves", "fugue", "--fen", "7k/8/8/8/8/8/8/K3A3 w")
    assert "e1-e8" in result.stdout.split()


def test_perft_last_line_and_divide() -> None:
    result = run("perft", "fugue", "2", "--divide")
    lines = result.stdout.splitlines()
    assert result.returncode == 0
    assert lines[-1] == "nodes 484"
    assert lines[0] == "a2-a3 22"
    assert len(lines) == 23
    assert run("perft", "fugue", "3").stdout.strip() == "nodes 17424"


def test_show_prints_coordinates() -> None:
    out = run("show", "fugue").stdout
    assert out.splitlines()[0].startswith("8  w  l  q  k")
    assert "a  b  c  d  e  f  g  h" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("moves", "chess"), "unknown variant 'chess'"),
        (("moves", "fugue", "--fen", "8/8 w"), "has 2 ranks"),
        (("moves", "fugue", "--fen", "8/8/8/8/8/8/8/KK6 w"), "impossible Fugue position"),
        (("perft", "fugue", "-2"), "must be 0 or more"),
        (("perft", "fugue", "deep"), "expected a whole number"),
    ],
)
def test_errors_go_to_stderr_with_status_2_and_no_traceback(args: tuple[str, ...], message: str) -> None:
    result = run(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_terminal_game_session() -> None:
    script = "moves e2\ne2-e4\ne2-e3\nfen\nundo\nfoo\nhelp\nquit\n"
    result = run("play", "fugue", stdin=script)
    out = result.stdout
    assert result.returncode == 0
    assert "e2-d3 e2-e3 e2-f3" in out
    assert "e2-e4 is illegal" in out
    assert "Last move: e2-e3" in out
    assert "wlqksaui/pppppppp/8/8/8/4P3/PPPP1PPP/IUASKQLW b" in out
    assert "Undone: e2-e3" in out
    assert "malformed move text: 'foo'" in out
    assert "Commands:" in out
    assert "Traceback" not in result.stderr


def test_terminal_game_announces_the_end() -> None:
    result = run("play", "fugue", "--fen", "8/8/8/4k3/4W3/8/8/K7 w", stdin="e4*e5\nmoves\n")
    assert "Game over: White wins (King captured). Result 1-0" in result.stdout
    assert "(no legal moves)" in result.stdout


def test_terminal_game_ends_on_end_of_input() -> None:
    assert run("play", "fugue", stdin="").returncode == 0
