"""The engine protocol and the engine commands, driven through real subprocesses."""

from __future__ import annotations

import subprocess
import sys
import time

from exochess import Board


def session(commands: str, timeout: float = 120) -> list[str]:
    result = subprocess.run(
        [sys.executable, "-m", "exochess.cli.main", "engine"],
        input=commands,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert result.returncode == 0
    assert "Traceback" not in result.stderr
    return result.stdout.splitlines()


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "exochess.cli.main", *args], capture_output=True, text=True, timeout=120
    )


def test_handshake() -> None:
    out = session("uci\nisready\nquit\n")
    assert out[0].startswith("id name exochess")
    assert "option name Level type spin default 8 min 1 max 8" in out
    assert any(line.startswith("option name Variant type combo") and "var fugue" in line for line in out)
    assert out[-2:] == ["uciok", "readyok"]


def test_go_depth_prints_info_then_bestmove() -> None:
    out = session("position startpos moves e2-e3 d7-d6\ngo depth 3\n")
    infos = [line for line in out if line.startswith("info depth")]
    assert [line.split()[2] for line in infos] == ["1", "2", "3"]
    for line in infos:
        words = line.split()
        assert words[words.index("score") + 1] in ("cp", "mate")
        assert "nodes" in words and "nps" in words and "pv" in words
    assert out[-1].startswith("bestmove ")
    move = out[-1].split()[1]
    board = Board("fugue")
    board.push_text("e2-e3")
    board.push_text("d7-d6")
    assert board.parse_move(move) in board.legal_moves
    # The PV of the last iteration starts with the best move.
    assert infos[-1].split(" pv ")[1].split()[0] == move


def test_round_trip_of_moves_and_mate_score() -> None:
    out = session(
        "setoption name Variant value fugue\nucinewgame\nposition fen k7/1I6/8/8/8/8/p7/4K1Q1 w\ngo depth 4\n"
    )
    assert "score mate 2" in out[-2]
    assert out[-1] == "bestmove g1-g8"
    # The move the engine printed is accepted back in a position command.
    out = session("position fen k7/1I6/8/8/8/8/p7/4K1Q1 w moves g1-g8 a2-a1=Q\ngo depth 2\n")
    assert out[-1] == "bestmove g8xa8"
    assert "score mate 1" in out[-2]


def test_errors_never_kill_the_engine() -> None:
    out = session(
        "hello\n"
        "position startpos moves e2-e9\n"
        "position startpos moves e7-e6\n"
        "position fen nonsense w\n"
        "setoption name Variant value chess\n"
        "setoption name Level value 11\n"
        "setoption name Hash value 0\n"  # out of range (Hash itself is known)
        "setoption name Contempt value 16\n"
        "setoption\n"
        "go depth\n"
        "go sideways 3\n"
        "go nodes -5\n"
        "position\n"
        "isready\n"
    )
    errors = [line for line in out if line.startswith("info string error")]
    assert len(errors) == 13
    assert out[-1] == "readyok"


def test_illegal_position_keeps_the_previous_one() -> None:
    out = session("position startpos moves e2-e3\nposition startpos moves e2-e3 e2-e3\nd\n")
    assert any("fen wlqksaui/pppppppp/8/8/8/4P3/PPPP1PPP/IUASKQLW b" in line for line in out)


def test_stop_ends_an_infinite_search() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "exochess.cli.main", "engine"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("position startpos\ngo infinite\n")
    proc.stdin.flush()
    time.sleep(0.5)
    proc.stdin.write("isready\n")
    proc.stdin.flush()
    while (line := proc.stdout.readline().strip()) != "readyok":
        assert line.startswith("info "), line  # the search is running while isready is answered
    proc.stdin.write("stop\nquit\n")
    proc.stdin.flush()
    out, _err = proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert "bestmove " in out


def test_game_over_position_answers_none() -> None:
    out = session("position fen 3k4/8/8/8/8/8/8/3QK3 w moves d1xd8\ngo depth 2\n")
    assert out[-1] == "bestmove (none)"


def test_game_over_position_in_infinite_mode_waits_for_stop() -> None:
    """UCI: no bestmove before "stop" in infinite mode, even when there is nothing to search."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "exochess.cli.main", "engine"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("position fen 3k4/8/8/8/8/8/8/3QK3 w moves d1xd8\ngo infinite\nisready\n")
    proc.stdin.flush()
    before = []
    while (line := proc.stdout.readline().strip()) != "readyok":
        before.append(line)
    assert not any(line.startswith("bestmove") for line in before), before
    proc.stdin.write("stop\nquit\n")
    proc.stdin.flush()
    out, _err = proc.communicate(timeout=60)
    assert proc.returncode == 0
    assert out.splitlines()[0] == "bestmove (none)"


def test_levels_and_clock() -> None:
    out = session("setoption name Level value 1\nposition startpos\ngo wtime 2000 btime 2000 winc 0 binc 0\n")
    assert out[-1].startswith("bestmove ")


def test_a_weak_level_on_a_clock_keeps_its_move_time_as_a_cap() -> None:
    from exochess.engine.levels import DEFAULT_MOVETIME_MS
    from exochess.engine.limits import Limits
    from exochess.engine.protocol import EngineProtocol

    searched: list[Limits] = []
    session = EngineProtocol(lambda line: None)
    session._run = lambda board, limits, options, *rest: searched.append(limits)  # type: ignore[method-assign]
    for level in (2, 8):
        session.handle(f"setoption name Level value {level}")
        session.handle("position startpos")
        session.handle("go wtime 600000 btime 600000 winc 5000 binc 5000")
        session.finish()
    weak, full = searched
    assert weak.movetime_ms == DEFAULT_MOVETIME_MS[2] and weak.wtime_ms == 600_000
    assert full.movetime_ms is None and full.winc_ms == 5000
    # the clock's share: 600 s / 30 + 3/4 of 5 s, no new iteration after 60% of it
    soft, hard = full.time_budget(True)
    assert soft is not None and hard is not None
    assert abs(soft - 0.6 * ((600_000 - 20) / 30 + 3750) / 1000) < 1e-9
    assert weak.time_budget(True)[1] == DEFAULT_MOVETIME_MS[2] / 1000


def test_cli_analyse() -> None:
    result = cli("analyse", "fugue", "--fen", "k7/1I6/8/8/8/8/p7/4K1Q1 w", "--depth", "3")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert [line.split()[1] for line in lines[:-1]] == ["1", "2", "3"]
    assert "#3" in lines[-2] and "nps" in lines[-2] and "pv g1-g8" in lines[-2]
    assert lines[-1] == "bestmove g1-g8"


def test_cli_errors() -> None:
    for args in (
        ("analyse", "chess"),
        ("analyse", "fugue", "--depth", "0"),
        ("analyse", "fugue", "--fen", "3k4/8/8/8/8/8/8/3QK3 b", "--depth", "2", "--movetime", "5"),
        ("match", "fugue", "--a", "9", "--b", "1"),
        ("match", "fugue", "--a", "speed=1", "--b", "1"),
    ):
        result = cli(*args)
        assert result.returncode == 2, args
        assert "Traceback" not in result.stderr
        assert result.stderr.strip()


def test_cli_match_table() -> None:
    result = cli("match", "fugue", "--a", "level=2,nodes=200", "--b", "level=1,nodes=50", "--games", "2")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "wins" in out and "losses" in out and "Elo difference A - B" in out
    assert "2/2 games" in result.stderr


def test_cli_play_against_the_computer() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "exochess.cli.main", "play", "fugue", "--computer", "black", "--level", "1"],
        input="e2-e3\nquit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0
    assert "Computer plays" in result.stdout


def test_collector_is_off_until_bestmove_is_out_and_back_on_after() -> None:
    # In-process session: the answer is written while the cyclic collector is still off (its
    # first pass after a search would delay bestmove), and the collector is on again after.
    import gc

    from exochess.engine.protocol import EngineProtocol

    seen: list[tuple[str, bool]] = []
    session = EngineProtocol(lambda line: seen.append((line, gc.isenabled())))
    assert gc.isenabled()
    try:
        session.handle("go depth 2")
        session.finish()
        assert seen[-1][0].startswith("bestmove ") and seen[-1][1] is False
        assert gc.isenabled()
        # What the search left (its tables) is out of the collector's sight.
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_full_tables_are_freed_after_bestmove_not_during_the_search() -> None:
    # Freeing a full table or cache takes tens of milliseconds; a search that dropped one
    # near its deadline overran "go movetime" by up to 140 ms.  The search keeps what it
    # drops, and the session frees it once the answer is out.
    import gc

    from exochess.engine.protocol import EngineProtocol
    from exochess.engine.tt import TranspositionTable

    dropped_when_answering: list[int] = []
    session = EngineProtocol(lambda line: None)
    session.searcher.tt = TranspositionTable(capacity=50)  # turns over many times at depth 3
    tt = session.searcher.tt
    session.send = lambda line: dropped_when_answering.append(len(tt.retired))  # type: ignore[method-assign]
    try:
        session.handle("go depth 3")
        session.finish()
        assert dropped_when_answering[-1] == 1  # the last turnover's dict still waited
        assert tt.retired == []  # freed after bestmove
    finally:
        gc.unfreeze()


def test_a_search_keeps_at_most_one_dropped_table_and_frees_it_before_the_next() -> None:
    from exochess import Board
    from exochess.engine import Limits, Searcher
    from exochess.engine.tt import TranspositionTable

    tt = TranspositionTable(capacity=50)
    searcher = Searcher(tt=tt)
    searcher.search(Board("fugue"), Limits(depth=3))
    assert len(tt.retired) == 1 and len(tt) <= 100  # memory stays bounded
    kept = tt.retired[0]
    searcher.search(Board("fugue"), Limits(depth=1))
    assert all(d is not kept for d in tt.retired)  # released before the second search
    searcher.release()
    assert tt.retired == []
