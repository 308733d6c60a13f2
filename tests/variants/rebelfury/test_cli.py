"""Rebel Fury through the command line and the text diagram."""

from __future__ import annotations

import subprocess
import sys

from exochess import Board
from exochess.text import render


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "exochess.cli.main", *args], capture_output=True, text=True, timeout=120
    )


def test_render_aligns_two_digit_ranks() -> None:
    lines = render(Board("rebelfury")).splitlines()
    assert len(lines) == 13
    assert lines[0].startswith("12 ")
    assert lines[11].startswith(" 1 ")
    assert lines[9].startswith(" 3 ")
    # Every file letter sits exactly above/below the pieces of its column.
    files = lines[-1]
    for rank_line in lines[:-1]:
        for index, letter in enumerate("abcdefghijkl"):
            column = files.index(letter)
            assert rank_line[column] != " ", (rank_line, letter, index)
    assert lines[0].split()[1:] == list("fdcghmxjgcdf")
    assert lines[11].split()[1:] == list("FDCGHMXJGCDF")


def test_cli_show_moves_perft() -> None:
    shown = run("show", "rebelfury")
    assert shown.returncode == 0
    assert "12  f  d  c  g  h  m  x  j  g  c  d  f" in shown.stdout
    assert " 1  F  D  C  G  H  M  X  J  G  C  D  F" in shown.stdout
    moves = run("moves", "rebelfury")
    assert moves.returncode == 0
    assert len(moves.stdout.split()) == 118
    assert "e1xe11" in moves.stdout.split()
    assert run("perft", "rebelfury", "2").stdout.strip().splitlines()[-1] == "nodes 11847"


def test_cli_moves_from_fen_with_two_digit_runs() -> None:
    result = run("moves", "rebelfury", "--fen", "11h/12/12/12/12/12/12/12/12/12/12/F11 w")
    assert result.returncode == 0
    assert {"a1-a12", "a1-l1", "a1-k11", "a1xl12"} <= set(result.stdout.split())
    # With a Fury instead of the Harpy, the white Fury is the first piece on its diagonal: petrified.
    result = run("moves", "rebelfury", "--fen", "11f/12/12/12/12/12/12/12/12/12/12/F11 w")
    assert result.stdout.split() == ["a1-b3", "a1-c2"]
