"""Matches: external engines over the protocol, pair order, the sequential test on real games."""

from __future__ import annotations

import random
import shlex
import sys
import textwrap
from pathlib import Path

import pytest

from exochess import Board
from exochess_lab.external import ExternalEngine, ExternalEngineError
from exochess_lab.match import (
    OPENING_BALANCE_CP,
    MatchConfigError,
    balanced_opening,
    check_player,
    opening_score,
    parse_player,
    play_game,
    random_opening,
    run_match,
    run_sprt,
)
from exochess_lab.sprt import Sprt
from tests.helpers import game_names

pytestmark = pytest.mark.search  # compiled build only in make test (pyproject.toml's markers)

ENGINE = f"{shlex.quote(sys.executable)} -m exochess.cli.main engine"
"""This checkout's ``exochess engine``, as a command line (the installed script may be another build)."""


def test_parse_command_player() -> None:
    p = parse_player(f"nodes=300,level=6,cmd:{ENGINE}")
    assert p.command == (sys.executable, "-m", "exochess.cli.main", "engine")
    assert (p.nodes, p.level) == (300, 6)
    assert parse_player("cmd:'/opt/my engine' --uci").command == ("/opt/my engine", "--uci")
    for text in (
        "cmd:",
        "cmd:   ",
        "speed=3,cmd:x",
        "nodes=0,cmd:x",
        "nodes=x,cmd:x",
        "level=9,cmd:x",
        "nodes=5cmd:x",
        "cmd:'unclosed",
    ):
        with pytest.raises(MatchConfigError):
            parse_player(text)


def test_external_player_plays_a_game_over_a_real_engine_process() -> None:
    external = parse_player(f"nodes=300,cmd:{ENGINE}")
    inside = parse_player("level=3,nodes=300")
    opening = ["e2-e3"]
    score, plies, reason, moves = play_game("fugue", external, inside, opening, None, seed=2, max_plies=40)
    assert score in (0.0, 0.5, 1.0) and reason and plies == len(moves) > 1
    board = Board("fugue")  # every move, the external engine's included, replays legally
    for text in moves:
        board.push_text(text)
    # The same game with the colours swapped: the external player also answers as Black.
    score, plies, _, moves = play_game("fugue", inside, external, opening, None, seed=2, max_plies=40)
    assert plies == len(moves) > 2


def test_external_engine_answers_with_node_budgets_deterministically() -> None:
    with ExternalEngine(shlex.split(ENGINE), "interweave", level=8) as engine:
        first = engine.best_move([], nodes=400)
        engine.send("ucinewgame")  # the table kept from the first search would change the second
        assert engine.best_move([], nodes=400) == first
        assert first in {str(m) for m in Board("interweave").legal_moves}


def fake_engine(tmp_path: Path, answer: str) -> str:
    """A command for a script that speaks just enough protocol to answer ``bestmove ANSWER``."""
    script = tmp_path / "fake_engine.py"
    script.write_text(
        textwrap.dedent(f"""
        import sys
        for line in sys.stdin:
            word = line.split()[0] if line.split() else ""
            if word == "uci":
                print("uciok", flush=True)
            elif word == "isready":
                print("readyok", flush=True)
            elif word == "go":
                print("bestmove {answer}", flush=True)
            elif word == "quit":
                break
    """)
    )
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def test_an_illegal_or_missing_answer_is_a_clear_error(tmp_path: Path) -> None:
    inside = parse_player("level=1,nodes=50")
    with pytest.raises(ExternalEngineError, match="played 'e2-e9'"):
        play_game("fugue", parse_player("cmd:" + fake_engine(tmp_path, "e2-e9")), inside, [], None)
    with pytest.raises(ExternalEngineError, match=r"answered 'bestmove \(none\)'"):
        play_game("fugue", inside, parse_player("cmd:" + fake_engine(tmp_path, "(none)")), [], None)


def test_a_command_that_is_no_engine_fails_before_the_match() -> None:
    with pytest.raises(ExternalEngineError, match="cannot start"):
        check_player("fugue", parse_player("cmd:/nonexistent/exochess engine"))
    with pytest.raises(ExternalEngineError, match="exited"):
        check_player("fugue", parse_player(f"cmd:{shlex.quote(sys.executable)} -c pass"))
    check_player("rebelfury", parse_player(f"cmd:{ENGINE}"))  # a real engine passes


def test_results_come_in_pair_order_whatever_the_number_of_processes() -> None:
    a = parse_player("level=4,nodes=150")
    b = parse_player("level=2,nodes=150")
    serial = run_match("fugue", a, b, 2, seed=5, jobs=1)
    parallel = run_match("fugue", a, b, 2, seed=5, jobs=2)
    assert [g.moves for g in parallel.games] == [g.moves for g in serial.games]
    assert [g.white for g in serial.games] == ["a", "b"]
    assert serial.games[0].moves[:4] == serial.games[1].moves[:4]  # a pair shares its opening


@pytest.mark.generic
@pytest.mark.parametrize("variant", game_names())
def test_balanced_openings_leave_neither_side_far_ahead(variant: str) -> None:
    rng = random.Random(11)
    openings = [balanced_opening(variant, 4, rng) for _ in range(3)]
    for texts in openings:
        assert len(texts) == 4
        assert opening_score(variant, texts) <= OPENING_BALANCE_CP
    again = random.Random(11)  # the same seed, the same openings (the judging search has a fixed depth)
    assert [balanced_opening(variant, 4, again) for _ in range(3)] == openings


def test_most_random_rebel_fury_openings_are_lopsided() -> None:
    """Why matches filter openings: four random plies of Rebel Fury mostly leave one side far ahead."""
    rng = random.Random(3)
    scores = [opening_score("rebelfury", random_opening("rebelfury", 4, rng)) for _ in range(12)]
    assert sum(score > OPENING_BALANCE_CP for score in scores) >= 6


def test_balance_zero_keeps_the_first_random_opening() -> None:
    first = random_opening("rebelfury", 4, random.Random(2))
    assert balanced_opening("rebelfury", 4, random.Random(2), 0) == first


def test_when_no_opening_is_balanced_the_closest_is_kept() -> None:
    closest = balanced_opening("rebelfury", 4, random.Random(4), balance_cp=1, tries=3)
    replay = random.Random(4)  # the three openings it drew
    candidates = [random_opening("rebelfury", 4, replay) for _ in range(3)]
    assert all(opening_score("rebelfury", c) > 1 for c in candidates)
    assert closest in candidates
    assert opening_score("rebelfury", closest) == min(opening_score("rebelfury", c) for c in candidates)


def test_a_tiny_sprt_accepts_h1_for_level_8_against_level_1() -> None:
    a = parse_player("level=8,nodes=400")
    b = parse_player("level=1,nodes=400")
    seen: list[int] = []
    result, status = run_sprt(
        "fugue", a, b, Sprt(0, 200), 40, seed=3, jobs=1, progress=lambda s: seen.append(s.pairs)
    )
    assert status.verdict == "H1"
    assert status.llr >= status.bounds[1]
    assert seen == list(range(1, status.pairs + 1))  # one progress report per pair
    assert status.pairs <= 12 and len(result.games) == 2 * status.pairs
    assert sum(status.counts) == status.pairs and status.counts[4] >= status.pairs - 2


def test_an_engine_error_in_a_game_process_reaches_the_caller(tmp_path: Path) -> None:
    broken = parse_player("cmd:" + fake_engine(tmp_path, "e2-e9"))
    with pytest.raises(ExternalEngineError, match="played 'e2-e9'"):
        run_match("fugue", parse_player("level=1,nodes=50"), broken, 2, jobs=2)
