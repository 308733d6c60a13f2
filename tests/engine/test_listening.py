"""The engine answers while it searches (issue 48), and its tables keep to the Hash budget.

The latencies themselves are measured by ``bench/listen.py`` and ``bench/memory.py``; these
tests check the ordering of the answers only, with generous timeouts (a loaded machine).
"""

from __future__ import annotations

import queue
import subprocess
import sys
import threading

import pytest

from exochess import Board
from exochess.engine import Limits, Searcher
from exochess.engine.tt import hash_capacity, reclaim, reclaim_wait
from tests.helpers import game_names

TIMEOUT_S = 120.0


class Engine:
    """An ``exochess engine`` process whose output lines are read by a thread."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "exochess.cli.main", "engine"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.strip())

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def until(self, prefixes: tuple[str, ...]) -> str:
        """The next line starting with one of ``prefixes`` (info, id and option lines are skipped)."""
        while True:
            line = self.lines.get(timeout=TIMEOUT_S)
            if line.startswith(prefixes):
                return line
            assert line.startswith(("info ", "id ", "option ", "uciok")) and "error" not in line, line

    def close(self) -> None:
        self.send("quit")
        self.proc.wait(TIMEOUT_S)
        assert self.proc.returncode == 0
        assert self.proc.stderr is not None
        assert "Traceback" not in self.proc.stderr.read()


# Not marked generic: the engine process knows the installed games only, not one a test
# registers (``pytest --toy-game``); in the ordinary run it goes over every registered game.
@pytest.mark.parametrize("variant", game_names())
def test_isready_and_stop_are_answered_during_an_infinite_search(variant: str) -> None:
    engine = Engine()
    try:
        engine.send(f"setoption name Variant value {variant}")
        engine.send("position startpos")
        engine.send("go infinite")
        engine.until(("info depth",))  # searching
        for _ in range(3):
            engine.send("isready")
            assert engine.until(("readyok", "bestmove")) == "readyok"  # no bestmove before stop
        engine.send("stop")
        assert engine.until(("readyok", "bestmove")).startswith("bestmove ")
        engine.send("isready")
        assert engine.until(("readyok", "bestmove")) == "readyok"
    finally:
        engine.close()


def test_readyok_comes_before_the_bestmove_of_a_long_search() -> None:
    engine = Engine()
    try:
        engine.send("position startpos moves e2-e3 d7-d6")
        engine.send("go movetime 5000")
        engine.until(("info depth",))
        engine.send("isready")
        assert engine.until(("readyok", "bestmove")) == "readyok"
        assert engine.until(("readyok", "bestmove")).startswith("bestmove ")
    finally:
        engine.close()


def test_quit_during_a_search_ends_the_engine() -> None:
    engine = Engine()
    engine.send("go infinite")
    engine.until(("info depth",))
    engine.close()  # quit: exit code 0, no traceback


def test_hash_option_is_listed_and_checked() -> None:
    engine = Engine()
    try:
        engine.send("uci")
        assert engine.until(("option name Hash",)) == "option name Hash type spin default 64 min 1 max 4096"
        engine.send("setoption name Hash value 0")
        assert "Hash must be 1 to 4096 MiB" in engine.until(("info string error",))
        engine.send("setoption name Hash value 2")
        engine.send("go depth 2")
        assert engine.until(("bestmove",)).startswith("bestmove ")
    finally:
        engine.close()


@pytest.mark.generic
@pytest.mark.parametrize("variant", game_names())
def test_the_tables_keep_to_the_hash_budget(variant: str) -> None:
    searcher = Searcher(hash_mb=1)
    assert searcher.tt.capacity == hash_capacity(1)
    board = Board(variant)
    board.push(sorted(board.legal_moves, key=str)[0])
    for depth_or_nodes in (Limits(depth=3), Limits(nodes=40_000)):
        searcher.search(board, depth_or_nodes)
        for name, (held, most) in searcher.table_sizes().items():
            assert held <= most, (name, held, most)
    held, most = searcher.table_sizes()["tt"]
    assert held > most // 6  # the budget was reached (the table turned over), not just respected


def test_new_game_hands_the_tables_to_the_background_and_they_are_freed() -> None:
    searcher = Searcher(hash_mb=2)
    searcher.search(Board("fugue"), Limits(depth=3))
    old = searcher.tt.new
    assert old
    searcher.new_game()
    assert len(searcher.tt) == 0 and searcher.table_sizes()["eval"][0] == 0
    assert reclaim_wait(TIMEOUT_S)
    assert old == {}  # emptied by the reclaiming thread


def test_reclaim_empties_lists_and_dicts() -> None:
    d = {i: (i, [i]) for i in range(10_000)}
    items = list(range(5_000))
    reclaim([d, items, {}])
    assert reclaim_wait(TIMEOUT_S)
    assert d == {} and items == []
