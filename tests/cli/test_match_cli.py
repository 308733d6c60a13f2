"""``exochess match`` as a user runs it: the sequential test and its argument errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "exochess.cli.main", "match", *args],
        capture_output=True, text=True, timeout=300,
    )


def test_sprt_prints_a_line_per_pair_and_the_verdict() -> None:
    result = run("fugue", "--a", "level=8,nodes=400", "--b", "level=1,nodes=400", "--sprt", "0,200",
                 "--games", "40", "--seed", "3", "--jobs", "1")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("SPRT fugue: A - B <= 0 (H0) against >= 200 (H1)")
    progress = [line for line in lines if line.startswith("pairs ")]
    assert progress and progress[0].split()[1] == "1"
    assert "pentanomial" in progress[-1] and "LLR" in progress[-1] and "[-2.94, 2.94]" in progress[-1]
    verdict = next(line for line in lines if line.startswith("SPRT verdict"))
    assert f"H1 accepted after {len(progress)} pairs" in verdict
    assert "Elo difference A - B" in result.stdout  # the usual table follows


def test_sprt_cap_without_verdict() -> None:
    result = run("fugue", "--a", "level=1,nodes=50", "--b", "level=1,nodes=50", "--sprt", "0,50",
                 "--games", "2", "--jobs", "1")
    assert result.returncode == 0, result.stderr
    assert "SPRT verdict: none after 1 pairs, the cap of 2 games" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--sprt", "150,0"), "elo0 must be below elo1"),
        (("--sprt", "5,5"), "elo0 must be below elo1"),
        (("--sprt", "0"), "two Elo values"),
        (("--sprt", "zero,ten"), "two numbers"),
        (("--sprt", "0,150", "--alpha", "0.7"), "alpha must lie strictly between 0 and 0.5"),
        (("--sprt", "0,150", "--beta", "0"), "beta must lie strictly between 0 and 0.5"),
        (("--alpha", "0.1"), "give --sprt"),
        (("--b", "cmd:/nonexistent/exochess engine"), "cannot start engine '/nonexistent/exochess engine'"),
        (("--b", "cmd:"), "cmd: needs the engine's command line"),
        (("--b", "noise=3,cmd:/bin/true"), "only level, movetime, nodes and depth"),
        (("--b", "cmd:false"), "engine 'false': exited"),
        (("--opening-balance", "-5"), "--opening-balance must be 0 (off) or a number of centipawns"),
        (("--pgn", "/nonexistent/games.txt"), "cannot write --pgn file /nonexistent/games.txt"),
    ],
)
def test_bad_arguments_are_clear_errors(args: tuple[str, ...], message: str) -> None:
    argv = ["fugue", "--a", "1", "--b", "1", "--games", "2", *args]
    result = run(*argv)
    assert result.returncode == 2, result.stdout
    assert "Traceback" not in result.stderr
    assert message in result.stderr
    assert not result.stdout  # nothing was played


def test_plain_match_also_reports_the_pairs() -> None:
    result = run("fugue", "--a", "level=2,nodes=100", "--b", "level=1,nodes=50", "--games", "2")
    assert result.returncode == 0, result.stderr
    last = result.stdout.splitlines()[-1]
    assert last.startswith("pairs: 1, pentanomial ") and "Elo A - B from the pairs" in last


def test_the_header_says_how_openings_were_chosen() -> None:
    balanced = run("fugue", "--a", "level=1,nodes=50", "--b", "level=1,nodes=50", "--games", "2")
    assert balanced.returncode == 0, balanced.stderr
    assert "4 random opening plies, openings within 150 cp" in balanced.stdout
    plain = run("fugue", "--a", "level=1,nodes=50", "--b", "level=1,nodes=50", "--games", "2",
                "--opening-balance", "0")
    assert plain.returncode == 0, plain.stderr
    assert "openings unfiltered" in plain.stdout


def test_the_record_has_a_line_per_game_in_order(tmp_path: Path) -> None:
    record = tmp_path / "games.txt"
    result = run("fugue", "--a", "level=2,nodes=60", "--b", "level=1,nodes=60", "--games", "4",
                 "--jobs", "2", "--pgn", str(record))
    assert result.returncode == 0, result.stderr
    lines = record.read_text(encoding="utf-8").splitlines()
    assert [line.split()[:3] for line in lines] == [
        ["game", str(i), f"white={'A' if i % 2 else 'B'}"] for i in range(1, 5)]
    first, second = (line.split(": ", 1)[1].split() for line in lines[:2])
    assert first[:4] == second[:4]  # a pair shares its opening
