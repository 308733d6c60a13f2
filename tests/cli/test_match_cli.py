"""``exochess match`` as a user runs it: the sequential test, the game record and resuming
from it, and the argument errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from exochess.pgn import read_games
from exochess_lab.record import read_record

pytestmark = pytest.mark.search  # compiled build only in make test (pyproject.toml's markers)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "exochess.cli.main", "match", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_sprt_prints_a_line_per_pair_and_the_verdict() -> None:
    result = run(
        "fugue",
        "--a",
        "level=8,nodes=400",
        "--b",
        "level=1,nodes=400",
        "--sprt",
        "0,200",
        "--games",
        "40",
        "--seed",
        "3",
        "--jobs",
        "1",
    )
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
    result = run(
        "fugue",
        "--a",
        "level=1,nodes=50",
        "--b",
        "level=1,nodes=50",
        "--sprt",
        "0,50",
        "--games",
        "2",
        "--jobs",
        "1",
    )
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
        (("--record", "/nonexistent/games.txt"), "cannot write --record file /nonexistent/games.txt"),
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
    plain = run(
        "fugue",
        "--a",
        "level=1,nodes=50",
        "--b",
        "level=1,nodes=50",
        "--games",
        "2",
        "--opening-balance",
        "0",
    )
    assert plain.returncode == 0, plain.stderr
    assert "openings unfiltered" in plain.stdout


def test_the_record_has_a_line_per_game_in_order(tmp_path: Path) -> None:
    record = tmp_path / "games.txt"
    result = run(
        "fugue",
        "--a",
        "level=2,nodes=60",
        "--b",
        "level=1,nodes=60",
        "--games",
        "4",
        "--jobs",
        "2",
        "--record",
        str(record),
    )
    assert result.returncode == 0, result.stderr
    header, *lines = record.read_text(encoding="utf-8").splitlines()
    assert header.startswith("# exochess match {")
    settings = json.loads(header.removeprefix("# exochess match "))
    assert (settings["variant"], settings["a"], settings["seed"], settings["sprt"]) == (
        "fugue",
        "level=2,nodes=60",
        1,
        None,
    )
    assert [line.split()[:3] for line in lines] == [
        ["game", str(i), f"white={'A' if i % 2 else 'B'}"] for i in range(1, 5)
    ]
    first, second = (line.split(": ", 1)[1].split() for line in lines[:2])
    assert first[:4] == second[:4]  # a pair shares its opening


FIXED = ("fugue", "--a", "level=8,nodes=150", "--b", "level=5,nodes=150", "--seed", "9", "--jobs", "1")


def test_a_resumed_match_plays_the_games_an_unbroken_one_would(tmp_path: Path) -> None:
    # Node budgets make the games deterministic: 3 games, then resumed to 6, give the same
    # record as 6 in one go (the odd game's pair is completed with its own opening).
    whole, part = tmp_path / "whole.txt", tmp_path / "part.txt"
    assert run(*FIXED, "--games", "6", "--record", str(whole)).returncode == 0
    assert run(*FIXED, "--games", "3", "--record", str(part)).returncode == 0
    assert len(part.read_text(encoding="utf-8").splitlines()) == 1 + 3
    resumed = run(*FIXED, "--games", "6", "--record", str(part), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming " in resumed.stdout and ": 3 games played before" in resumed.stdout
    assert "match fugue: 6 games" in resumed.stdout  # the totals count the record's games too
    assert part.read_text(encoding="utf-8") == whole.read_text(encoding="utf-8")


def test_a_resumed_sprt_starts_from_the_recorded_pairs(tmp_path: Path) -> None:
    record = tmp_path / "sprt.txt"
    test = ("--sprt=-50,50",)  # pairs won once each leave the test where it is: no verdict
    first = run(*FIXED, *test, "--games", "4", "--record", str(record))
    assert first.returncode == 0, first.stderr
    last_line = [line for line in first.stdout.splitlines() if line.startswith("pairs ")][-1]
    again = run(*FIXED, *test, "--games", "6", "--record", str(record), "--resume")
    assert again.returncode == 0, again.stderr
    progress = [line for line in again.stdout.splitlines() if line.startswith("pairs ")]
    assert progress[0] == last_line  # where the record left the test
    assert progress[1].split()[1] == "3"
    assert len(record.read_text(encoding="utf-8").splitlines()) == 1 + 2 * len(progress[1:]) + 4


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("--seed", "10"), "seed: 10 (the record's 9)"),
        (("--b", "level=5,nodes=151"), "b: 'level=5,nodes=151' (the record's 'level=5,nodes=150')"),
        (("--sprt", "0,100"), "sprt: '0,100' (the record's None)"),
    ],
)
def test_resuming_with_other_settings_is_refused(
    tmp_path: Path, change: tuple[str, ...], message: str
) -> None:
    record = tmp_path / "games.txt"
    assert run(*FIXED, "--games", "2", "--record", str(record)).returncode == 0
    before = record.read_text(encoding="utf-8")
    args = dict(zip(FIXED[1::2], FIXED[2::2], strict=True))
    args.update(dict(zip(change[::2], change[1::2], strict=True)))
    settings = [x for kv in args.items() for x in kv]
    argv = ["fugue", *settings, "--games", "4", "--record", str(record), "--resume"]
    result = run(*argv)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"cannot resume {record}" in result.stderr and message in result.stderr
    assert record.read_text(encoding="utf-8") == before  # untouched


def test_resuming_a_record_that_is_not_one_is_a_clear_error(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    assert run(*FIXED, "--games", "2", "--record", str(good)).returncode == 0
    header, first, second = good.read_text(encoding="utf-8").splitlines()
    cases = {
        "missing.txt": (None, "cannot read the match record"),
        "old.txt": (f"{first}\n{second}\n", "is not a match record"),
        "garbled.txt": (f"{header}\n{first}\nhello\n", "line 3: not a game line"),
        "skipped.txt": (f"{header}\n{second}\n", "line 2: game 2 where game 1 was due"),
        "json.txt": ("# exochess match {oops\n", "line 1: the settings are not JSON"),
        "keys.txt": (
            '# exochess match {"variant": "fugue"}\n',
            "line 1: the settings must have exactly the keys",
        ),
        # Same settings, but the game's opening is not what seed 9 gives: another match's game.
        "foreign.txt": (f"{header}\n" + first.replace(": ", ": a1-a1 ", 1) + "\n", "game 1 does not follow"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / name
        if text is not None:
            path.write_text(text, encoding="utf-8")
        result = run(*FIXED, "--games", "4", "--record", str(path), "--resume")
        assert result.returncode == 2, (name, result.stdout)
        assert "Traceback" not in result.stderr and message in result.stderr, (name, result.stderr)
    no_file = run(*FIXED, "--games", "4", "--resume")
    assert no_file.returncode == 2 and "give --record too" in no_file.stderr


def test_pgn_holds_every_game_as_pgn_and_grows_when_resumed(tmp_path: Path) -> None:
    record, pgn = tmp_path / "record.txt", tmp_path / "games.pgn"
    assert run(*FIXED, "--games", "2", "--record", str(record), "--pgn", str(pgn)).returncode == 0
    resumed = run(*FIXED, "--games", "3", "--record", str(record), "--pgn", str(pgn), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    games = read_games(pgn.read_text(encoding="utf-8"))
    _, recorded = read_record(record)
    assert [g.headers["Round"] for g in games] == ["1", "2", "3"]
    assert [g.headers["White"][0] for g in games] == ["A", "B", "A"]
    assert games[0].headers["White"] == "A: level=8,nodes=150" and games[0].variant == "fugue"
    for game, line in zip(games, recorded, strict=True):
        assert tuple(str(m) for m in game.moves) == line.moves  # the PGN replays to the same moves
        assert game.result == {1.0: "1-0", 0.0: "0-1"}.get(line.score, "1/2-1/2")
