"""bench/sprt_outlook.py: continuations of a sequential test drawn from the pairs it played."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from exochess_lab.match import GameResult
from exochess_lab.record import MatchSettings, game_line, header_line
from exochess_lab.sprt import Sprt
from tests.helpers import bench_script

outlook = bench_script("sprt_outlook")


def test_pairs_that_all_win_accept_h1_and_never_h0() -> None:
    ended = outlook.simulate(Sprt(0, 100), [0, 0, 0, 0, 3], [0, 0, 0, 0, 1], 20, random.Random(1))
    assert len(ended.h1) == 20 and not ended.h0 and not ended.undecided
    assert max(ended.h1) <= 10  # each won pair adds the same LLR: every run ends alike


def test_pairs_that_all_lose_accept_h0() -> None:
    ended = outlook.simulate(Sprt(0, 100), [0] * 5, [1, 0, 0, 0, 0], 5, random.Random(1))
    assert len(ended.h0) == 5 and not ended.h1


def test_a_difference_at_the_midpoint_goes_both_ways() -> None:
    # Pair frequencies worth about +200 against SPRT(150, 250): neither verdict dominates.
    ended = outlook.simulate(Sprt(150, 250), [0] * 5, [5, 0, 24, 1, 44], 60, random.Random(2))
    assert len(ended.h1) >= 10 and len(ended.h0) >= 10


def write_record(path: Path, sprt: str | None, scores: list[float]) -> None:
    settings = MatchSettings("fugue", "8", "7", 100, 3, 4, 150, sprt, 0.05, 0.05)
    games = [
        GameResult("a" if i % 2 == 0 else "b", s, 1, "royal capture", ("b2-b3",))
        for i, s in enumerate(scores)
    ]
    path.write_text(
        header_line(settings) + "".join(game_line(i + 1, g) for i, g in enumerate(games)), encoding="utf-8"
    )


def test_a_record_gives_its_pairs_and_its_test(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Game 1: A is White and wins; game 2: A is Black and White (B) loses, so A wins the pair.
    path = tmp_path / "record.txt"
    write_record(path, "0,400", [1, 0, 1, 1, 0.5])
    counts, test = outlook.source_counts(str(path), None)
    assert counts == [0, 0, 1, 0, 1] and (test.elo0, test.elo1) == (0, 400)
    assert outlook.main([str(path), "--runs", "5", "--fresh", "0,200"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 pairs 0-0-1-0-1: ")
    assert "continued, 5 runs: H1" in out and "fresh SPRT(0, 200), 5 runs: H1" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["1-2-3-4-5"], "pair counts need --sprt"),
        (["no-such-record.txt"], "cannot read the match record"),
        (["1-2-3-4-5", "--sprt", "200,100"], "elo0 must be below elo1"),
        (["0-0-0-0-0", "--sprt", "0,100"], "no complete pair"),
    ],
)
def test_bad_sources_are_named(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert outlook.main(args) == 2
    assert message in capsys.readouterr().err


def test_a_record_without_a_test_needs_bounds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "record.txt"
    write_record(path, None, [1, 0])
    assert outlook.main([str(path)]) == 2
    assert "not the record of a sequential test" in capsys.readouterr().err
    assert outlook.main([str(path), "--sprt", "0,100", "--runs", "3"]) == 0
