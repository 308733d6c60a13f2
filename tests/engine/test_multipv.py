"""Multi-PV and searchmoves (issue 45, item 5): in the protocol and in the search API.

The protocol tests drive real ``exochess engine`` processes; they run in both builds (``make
test`` runs the suite pure and with the compiled package on PYTHONPATH).  Nothing here depends
on timing: searches are bounded by depth, and ``stop`` is sent once a line has been seen.
"""

from __future__ import annotations

import queue
import subprocess
import sys
import threading

import pytest

from exochess import Board, all_variants
from exochess.engine import MAX_MULTIPV, Analysis, Limits, Searcher
from exochess.errors import IllegalMoveError
from exochess.move import Move

from .test_protocol import session

GAMES = [v.name for v in all_variants()]
TIMEOUT_S = 120.0


def info_lines(out: list[str]) -> list[dict[str, str]]:
    """The ``info depth`` lines as {field: value} (``score`` joined: ``cp 12``; ``pv`` the first move)."""
    parsed = []
    for line in out:
        if not line.startswith("info depth"):
            continue
        words = line.split()
        fields = {words[i]: words[i + 1] for i in range(1, words.index("score"), 2)}
        s = words.index("score")
        fields["score"] = f"{words[s + 1]} {words[s + 2]}"
        fields["pv"] = words[words.index("pv") + 1]
        parsed.append(fields)
    return parsed


def comparable(score: str) -> int:
    """A ``cp N`` / ``mate N`` score on one scale (a quicker win above a slower one)."""
    kind, value = score.split()
    n = int(value)
    if kind == "cp":
        return n
    return 10**6 - n if n > 0 else -(10**6) - n


# --- the protocol -----------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_multipv_3_gives_three_ranked_lines_at_every_depth(game: str) -> None:
    out = session(
        f"uci\nsetoption name Variant value {game}\nsetoption name MultiPV value 3\n"
        "position startpos\ngo depth 3\n"
    )
    assert "option name MultiPV type spin default 1 min 1 max 64" in out
    infos = info_lines(out)
    depths = sorted({int(f["depth"]) for f in infos})
    assert depths == [1, 2, 3]
    board = Board(game)
    for depth in depths:
        lines = [f for f in infos if int(f["depth"]) == depth]
        assert [f["multipv"] for f in lines] == ["1", "2", "3"]
        firsts = [f["pv"] for f in lines]
        assert len(set(firsts)) == 3, firsts
        assert all(board.parse_move(m) in board.legal_moves for m in firsts)
        scores = [comparable(f["score"]) for f in lines]
        assert scores == sorted(scores, reverse=True), scores
    assert out[-1] == f"bestmove {infos[-3]['pv']}"  # line 1 of the last depth


@pytest.mark.parametrize("game", GAMES)
def test_searchmoves_restricts_the_best_move(game: str) -> None:
    free = session(f"setoption name Variant value {game}\nposition startpos\ngo depth 2\n")[-1].split()[1]
    board = Board(game)
    allowed = [str(m) for m in board.legal_moves if str(m) != free][-2:]  # two others than its choice
    out = session(
        f"setoption name Variant value {game}\nsetoption name MultiPV value 3\n"
        f"position startpos\ngo depth 2 searchmoves {' '.join(allowed)}\n"
    )
    infos = info_lines(out)
    assert infos and all(f["pv"] in allowed for f in infos)
    assert {f["multipv"] for f in infos} == {"1", "2"}  # two moves: two lines, however many asked
    assert out[-1].split()[1] in allowed
    # searchmoves may come before the other words of go
    out = session(
        f"setoption name Variant value {game}\nposition startpos\ngo searchmoves {allowed[0]} depth 2\n"
    )
    assert out[-1] == f"bestmove {allowed[0]}"


def test_bad_multipv_and_searchmoves_are_errors_and_change_nothing() -> None:
    out = session(
        "setoption name MultiPV value 0\n"
        "setoption name MultiPV value 65\n"
        "setoption name MultiPV value three\n"
        "setoption name MultiPV value\n"
        "position startpos\n"
        "go searchmoves\n"
        "go searchmoves e2-e9 depth 2\n"
        "go depth 2 searchmoves e2-e4\n"
        "go depth 1\n"
        "isready\n"
    )
    errors = [line for line in out if line.startswith("info string error")]
    assert len(errors) == 7, errors
    assert "MultiPV must be 1 to 64, not 0" in errors[0]
    assert "MultiPV must be 1 to 64, not 65" in errors[1]
    assert "MultiPV must be a whole number from 1 to 64, not 'three'" in errors[2]
    assert "expected: setoption name <Name> value <value>" in errors[3]
    assert "searchmoves needs at least one move" in errors[4]
    assert "searchmoves: e9 is not on the 8x8 board" in errors[5]
    assert "searchmoves: e2-e4 is illegal" in errors[6]
    # No search started for the bad go commands (one bestmove: "go depth 1"), and MultiPV is still 1.
    assert len([line for line in out if line.startswith("bestmove")]) == 1
    assert {f["multipv"] for f in info_lines(out)} == {"1"}
    assert "readyok" in out


def test_stop_during_a_multipv_search_answers_line_one() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "exochess.cli.main", "engine"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line.strip())

    threading.Thread(target=pump, daemon=True).start()
    proc.stdin.write("setoption name MultiPV value 3\nposition startpos\ngo infinite\n")
    proc.stdin.flush()
    seen: list[str] = []
    while "multipv 3" not in (line := lines.get(timeout=TIMEOUT_S)):
        seen.append(line)
    seen.append(line)
    proc.stdin.write("stop\n")
    proc.stdin.flush()
    while not (line := lines.get(timeout=TIMEOUT_S)).startswith("bestmove"):
        assert line.startswith("info "), line
        seen.append(line)
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    proc.wait(TIMEOUT_S)
    assert proc.returncode == 0
    assert proc.stderr is not None and "Traceback" not in proc.stderr.read()
    ones = [f for f in info_lines(seen) if f["multipv"] == "1"]
    assert line == f"bestmove {ones[-1]['pv']}"


# --- the search API -----------------------------------------------------------------------------


def middle(game: str) -> Board:
    """A position 12 or more plies into a game with 8 or more moves (a seeded walk that never ends it)."""
    import random

    rng = random.Random(11)
    board = Board(game)
    while len(board.move_stack) < 12 or len(board.raw_moves()) < 8:
        moves = list(board.raw_moves())
        rng.shuffle(moves)
        for raw in moves:
            board.push_raw(raw)
            if board.raw_moves():
                break
            board.pop_raw()
    return board


@pytest.mark.parametrize("game", GAMES)
def test_one_line_is_the_search_it_was(game: str) -> None:
    """multipv=1 is the single-line search: same move, score, line and tree (nodes) as without it."""
    for board in (Board(game), middle(game)):
        plain = Searcher().search(board, Limits(depth=3))
        one = Searcher().search(board, Limits(depth=3), multipv=1)
        assert (one.best, one.score_cp, one.pv) == (plain.best, plain.score_cp, plain.pv)
        assert one.nodes == plain.nodes
        assert one.lines == [] and one.all_lines() == [one]


@pytest.mark.parametrize("game", GAMES)
def test_every_line_is_a_distinct_root_move_best_first(game: str) -> None:
    board = middle(game)
    iterations: list[Analysis] = []
    result = Searcher().search(board, Limits(depth=3), multipv=4, on_iteration=iterations.append)
    assert [a.depth for a in iterations] == [1, 2, 3]
    for a in iterations:
        lines = a.all_lines()
        assert [line.multipv for line in lines] == [1, 2, 3, 4]
        assert len({line.best for line in lines}) == 4
        assert all(line.pv[0] == line.best and line.depth == a.depth for line in lines)
        assert [line.score_cp for line in lines] == sorted((line.score_cp for line in lines), reverse=True)
        assert (a.best, a.score_cp, a.pv) == (lines[0].best, lines[0].score_cp, lines[0].pv)
        assert all(line.lines == [] for line in lines)  # no line refers back to the result
    assert result.best == iterations[-1].best


def test_as_many_lines_as_root_moves_rank_them_all() -> None:
    board = Board("fugue", fen="k7/1I6/8/8/8/8/p7/4K1Q1 w")
    moves = list(board.legal_moves)
    result = Searcher().search(board, Limits(depth=4), multipv=MAX_MULTIPV)
    lines = result.all_lines()
    assert sorted(str(line.best) for line in lines) == sorted(str(m) for m in moves)
    assert str(result.best) == "g1-g8" and result.mate == 3  # the mate in two (three plies) first


def test_searchmoves_in_the_api() -> None:
    board = Board("fugue", fen="k7/1I6/8/8/8/8/p7/4K1Q1 w")
    others = [m for m in board.legal_moves if str(m) != "g1-g8"][:3]
    result = Searcher().search(board, Limits(depth=3), searchmoves=others, multipv=5)
    assert {line.best for line in result.all_lines()} == set(others)
    with pytest.raises(IllegalMoveError, match="not a legal move here: e2-e4"):
        Searcher().search(board, Limits(depth=1), searchmoves=[Move.from_text("e2-e4")])
    with pytest.raises(IllegalMoveError, match="names no move"):
        Searcher().search(board, Limits(depth=1), searchmoves=[])
    for bad in (0, MAX_MULTIPV + 1):
        with pytest.raises(ValueError, match="multipv must be 1 to 64"):
            Searcher().search(board, Limits(depth=1), multipv=bad)
