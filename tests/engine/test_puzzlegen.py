"""The puzzle generator on small budgets: what it keeps, what it drops, and a resumable run.

Every search is bounded by nodes, so each verdict here is the same on any machine and load.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from exochess import Board
from exochess.pgn import write_game
from exochess.puzzles import check_puzzle, read_puzzles
from exochess_lab.puzzlegen import Found, MiningSettings, Rejected, Task, examine, mine, unique_win
from exochess_lab.puzzlerun import run, settings_file

pytestmark = pytest.mark.search  # compiled build only in make test (pyproject.toml's markers)

SMALL = {"screen_nodes": 400, "confirm_nodes": 4000}


def settings(game: str, **extra: object) -> MiningSettings:
    return MiningSettings.for_game(game, **(SMALL | extra))


def test_a_unique_win_after_a_quiet_move_is_found_with_its_line() -> None:
    # Interweave: the Smasher h8-d4 threatens d4xd2(d1), which takes a King; White's capture is
    # compulsory (f3xf5), and nothing else wins.
    fen = "rb1kknbr/pp6/6p1/2p5/P4p2/5P2/PP3PPP/RB1KK1BR b - 020010"
    verdict = examine(
        Board("interweave", fen=fen), settings("interweave", confirm_nodes=12000), source="test"
    )
    assert isinstance(verdict, Found), verdict
    puzzle = verdict.puzzle
    assert puzzle.solution == ["h8-d4", "f3xf5(f4)", "d4xd2(d1)"]
    assert "royal-capture-in-2" in puzzle.themes and "quiet-move" in puzzle.themes
    assert 600 <= puzzle.rating <= 2600 and puzzle.source == "test"
    check_puzzle(puzzle)


def test_two_equal_winning_moves_are_rejected_as_ambiguous() -> None:
    # The black King on d2 can be taken by the white King and by the Queen: two winning moves.
    board = Board("fugue", fen="8/8/8/8/8/8/3kK3/3Q4 w")
    assert examine(board, settings("fugue")) == Rejected("ambiguous")


def test_a_capture_a_one_ply_search_finds_is_trivial() -> None:
    # Only d1xd8 wins (Black's Queen threatens the King), and a one-ply search sees it.
    board = Board("fugue", fen="3k4/8/8/8/7q/8/8/3QK3 w")
    assert examine(board, settings("fugue")) == Rejected("trivial")


def test_a_balanced_position_is_not_a_puzzle() -> None:
    board = Board("fugue")
    assert examine(board, settings("fugue")) == Rejected("not-winning")


def test_unique_win_needs_the_margin() -> None:
    from exochess.engine import Searcher

    s = settings("fugue")
    analysis = Searcher().search(Board("fugue", fen="8/8/8/8/8/8/3kK3/3Q4 w"), multipv=2)
    assert unique_win(analysis, 10, s) == "ambiguous"
    assert unique_win(analysis, 1, s) is None  # a single legal move cannot be ambiguous


@pytest.mark.parametrize("swing", [False, True])
def test_mining_is_deterministic_and_every_puzzle_is_legal(swing: bool) -> None:
    task = Task(settings("interweave", per_game=5, swing_screen=swing), seed=3)
    first, second = mine(task), mine(task)
    assert first.puzzles == second.puzzles
    assert first.stats.positions > 0 and first.stats.kept == len(first.puzzles)
    for data in first.puzzles:
        check_puzzle(read_puzzles("interweave", [json.dumps(data)])[0])


def test_a_pgn_game_is_mined_and_the_run_stops_when_the_games_run_out(tmp_path: Path) -> None:
    board = Board("interweave")
    moves = ["e2-c4", "d7-f5", "c4-d5", "e7xe5(e6)"]
    for text in moves[:1]:
        board.push_text(text)
    pgn = tmp_path / "games.pgn"
    pgn.write_text(write_game(board) + "\n" + write_game(board), encoding="utf-8")
    output = tmp_path / "puzzles.jsonl"
    result = run(settings("interweave", pgn=(str(pgn),), min_ply=0), output, jobs=1, command="test")
    assert result.stopped_by == "tasks"
    state = json.loads(settings_file(output).read_text(encoding="utf-8"))
    assert state["tasks_done"] == 2 and state["stats"]["positions"] >= 2


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "exochess.cli.main", "puzzles", *args],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_generate_resumes_where_it_stopped_and_refuses_other_settings(tmp_path: Path) -> None:
    out = tmp_path / "p.jsonl"
    budget = ["--screen-nodes", "300", "--confirm-nodes", "3000", "--seed", "5"]
    first = _cli("generate", "interweave", "-o", str(out), "--games", "1", "--quiet", *budget)
    assert first.returncode == 0, first.stderr
    state = json.loads(settings_file(out).read_text(encoding="utf-8"))
    assert state["tasks_done"] == 1 and state["runs"][0]["first_task"] == 0
    count = len(read_puzzles("interweave", out.read_text(encoding="utf-8").splitlines()))

    second = _cli("generate", "interweave", "-o", str(out), "--games", "2", "--quiet", *budget)
    assert second.returncode == 0, second.stderr
    state = json.loads(settings_file(out).read_text(encoding="utf-8"))
    assert state["tasks_done"] == 2 and state["runs"][1]["first_task"] == 1
    assert "--games 2" in state["runs"][1]["command"]
    assert len(read_puzzles("interweave", out.read_text(encoding="utf-8").splitlines())) >= count
    assert _cli("check", "interweave", "-i", str(out)).returncode == 0

    other = _cli("generate", "interweave", "-o", str(out), "--games", "3", "--seed", "6")
    assert other.returncode == 2
    assert "the settings differ" in other.stderr and "seed" in other.stderr
    assert "Traceback" not in other.stderr

    unbounded = _cli("generate", "interweave", "-o", str(tmp_path / "q.jsonl"))
    assert unbounded.returncode == 2 and "needs a bound" in unbounded.stderr


def _site_database(path: Path) -> str:
    """A real SQLite database with the site's tables: one finished Interweave game, one active."""
    import datetime as dt

    from sqlalchemy import create_engine, insert

    from exochess.web.domain import GameStatus, PlayerKind
    from exochess.web.storage.store import games, metadata, moves

    url = f"sqlite:///{path}"
    engine = create_engine(url)
    metadata.create_all(engine)
    board = Board("interweave")
    played = []
    for _ in range(12):
        move = sorted(board.legal_moves, key=str)[0]
        board.push(move)
        played.append(str(move))
    now = dt.datetime(2026, 11, 29)
    with engine.begin() as conn:
        for gid, status in (("g1", GameStatus.FINISHED), ("g2", GameStatus.ACTIVE)):
            conn.execute(
                insert(games).values(
                    id=gid,
                    variant="interweave",
                    start_fen=Board("interweave").fen(),
                    white=PlayerKind.HUMAN,
                    black=PlayerKind.ENGINE,
                    white_secret="x",
                    black_secret="y",
                    ply=len(played),
                    status=status,
                    created=now,
                    updated=now,
                )
            )
            for ply, text in enumerate(played):
                conn.execute(insert(moves).values(game_id=gid, ply=ply, text=text, created=now))
    engine.dispose()
    return url


def test_the_sites_finished_games_are_mined_from_its_database(tmp_path: Path) -> None:
    url = _site_database(tmp_path / "site.sqlite")
    output = tmp_path / "puzzles.jsonl"
    result = run(settings("interweave", database=url, min_ply=0), output, jobs=1, command="test")
    assert result.stopped_by == "tasks" and result.progress.tasks_done == 1  # the active game is not read
    assert result.progress.stats.positions == 13
    bad = _cli(
        "generate",
        "interweave",
        "-o",
        str(tmp_path / "x.jsonl"),
        "--database",
        "postgresql://u:secret@/nowhere",
    )
    assert bad.returncode == 2 and "secret" not in bad.stderr and "cannot" in bad.stderr, bad.stderr


def test_a_database_password_never_reaches_the_settings_file() -> None:
    s = settings("interweave", database="postgresql://puzzles:hunter2@db.example/site")
    assert s.to_json()["database"] == "postgresql://puzzles:***@db.example/site"
