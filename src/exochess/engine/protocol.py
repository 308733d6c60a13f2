"""The engine protocol: a UCI-like line protocol on stdin/stdout (``exochess engine``).

See ``docs/protocol.md`` for the full description.  In short::

    uci                                   -> id ..., option ..., uciok
    isready                               -> readyok
    setoption name Variant value fugue    (resets the position to the start)
    setoption name Level value 5
    setoption name Hash value 64          (MiB for the tables; they start empty)
    setoption name MultiPV value 3        (lines per iteration, best first)
    ucinewgame
    position startpos|fen <FEN> [moves <m1> <m2> ...]
    go [depth N] [nodes N] [movetime MS] [wtime MS btime MS [winc MS] [binc MS] [movestogo N]] [infinite]
       [searchmoves <m1> <m2> ...]
                                  -> info depth ... multipv K score cp|mate ... nodes ... nps ... pv ...
                                  -> bestmove <move>
    stop                                  -> (the running search ends, bestmove is printed)
    quit

Moves are written in the canonical text of the rules.  A bad command is
answered by ``info string error ...`` and never ends the engine.

Commands are read by the main thread while a second one searches; ``isready``, ``stop`` and
``quit`` are answered within milliseconds during a search (``bench/listen.py`` measures it):
the search pauses for the other threads every few dozen nodes (``search.CHECK_EVERY``) and
this process asks the interpreter to switch threads every :data:`SWITCH_INTERVAL_S`.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import threading
from collections.abc import Callable
from typing import TextIO

from exochess import __version__
from exochess.board import Board
from exochess.engine.levels import level as get_level
from exochess.engine.limits import Limits
from exochess.engine.search import MAX_MULTIPV, Analysis, Searcher, SearchOptions
from exochess.engine.tt import DEFAULT_HASH_MB, MAX_HASH_MB, MIN_HASH_MB
from exochess.errors import ExochessError
from exochess.move import Move
from exochess.variants import all_variants, default_variant, find_variant

SWITCH_INTERVAL_S = 0.001
"""How long a thread waiting for the GIL waits before asking the holder to hand it over
(CPython's default is 5 ms): the command reader waits at most about this long plus one pause
of the search."""

GO_INT_FIELDS = ("depth", "nodes", "movetime", "wtime", "btime", "winc", "binc", "movestogo")
GO_WORDS = (*GO_INT_FIELDS, "infinite", "searchmoves")
"""The words of ``go``: ``searchmoves`` takes the moves up to the next of them."""


def format_info(a: Analysis) -> str:
    """The ``info`` line of one line of a completed iteration (``multipv`` is its rank).

    ``score mate N`` counts *moves* (UCI custom): N > 0 the side to move wins,
    N < 0 it loses; ``score cp`` is from the side to move's point of view.
    """
    if a.mate is not None:
        moves = (a.mate + 1) // 2 if a.mate > 0 else -((-a.mate + 1) // 2)
        score = f"mate {moves}"
    else:
        score = f"cp {a.score_cp}"
    pv = " ".join(str(m) for m in a.pv)
    return (
        f"info depth {a.depth} seldepth {a.seldepth} multipv {a.multipv} score {score} "
        f"nodes {a.nodes} nps {a.nps} time {a.time_ms} pv {pv}"
    )


class EngineProtocol:
    """State of one protocol session: variant, level, position, the search thread."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self._write_raw = write
        self._lock = threading.Lock()
        self.variant_name = default_variant().name
        self.level = 8
        self.hash_mb = DEFAULT_HASH_MB
        self.multipv = 1
        self.board = Board(self.variant_name)
        self.searcher = Searcher()
        self._thread: threading.Thread | None = None
        self.infinite = False
        self._released = threading.Event()
        self._answered = threading.Event()
        """Set once the running search's ``bestmove`` is out (``quit`` waits for it, not for the
        search's clean-up)."""

    # --- output ------------------------------------------------------------------------

    def send(self, line: str) -> None:
        """Write one line (thread-safe)."""
        with self._lock:
            self._write_raw(line)

    def error(self, message: str) -> None:
        self.send(f"info string error {message}")

    # --- input ----------------------------------------------------------------------------

    def handle(self, line: str) -> bool:
        """Process one command line; returns False after ``quit``."""
        words = line.split()
        if not words:
            return True
        command = words[0]
        try:
            if command == "quit":
                self._quit_search()
                return False
            handler = getattr(self, f"cmd_{command}", None)
            if handler is None:
                self.error(f"unknown command {command!r}")
            else:
                handler(words[1:])
        except ExochessError as exc:
            self.error(str(exc))
        except (ValueError, IndexError) as exc:
            self.error(f"malformed command {line.strip()!r}: {exc}")
        return True

    def searching(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop_search(self) -> None:
        """Stop a running search and wait for its ``bestmove``."""
        if self._thread is not None:
            self.searcher.stop()
            self._released.set()
            self._thread.join()
            self._thread = None

    def _quit_search(self) -> None:
        """Stop a running search and wait for its ``bestmove`` only: the process exits next, so
        the search's clean-up (freeing its tables, 30-60 ms after a long search) need not end."""
        if self._thread is not None:
            self.searcher.stop()
            self._released.set()
            self._answered.wait()

    def finish(self) -> None:
        """Let a bounded search finish, stop an infinite one (before a new command or at the end)."""
        if self._thread is not None:
            if self.infinite:
                self.searcher.stop()
                self._released.set()
            self._thread.join()
            self._thread = None

    # --- commands ---------------------------------------------------------------------------

    def cmd_uci(self, args: list[str]) -> None:
        names = " ".join(f"var {v.name}" for v in all_variants())
        self.send(f"id name exochess {__version__}")
        self.send("id author the exochess developers")
        self.send(f"option name Variant type combo default {self.variant_name} {names}")
        self.send("option name Level type spin default 8 min 1 max 8")
        self.send(f"option name Hash type spin default {DEFAULT_HASH_MB} min {MIN_HASH_MB} max {MAX_HASH_MB}")
        self.send(f"option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}")
        self.send("uciok")

    def cmd_isready(self, args: list[str]) -> None:
        self.send("readyok")

    def cmd_setoption(self, args: list[str]) -> None:
        if len(args) < 4 or args[0] != "name" or "value" not in args:
            raise ValueError("expected: setoption name <Name> value <value>")
        i = args.index("value")
        name = " ".join(args[1:i]).lower()
        value = " ".join(args[i + 1 :])
        if not value:
            raise ValueError("missing value")
        self.finish()
        if name == "variant":
            variant = find_variant(value)
            self.variant_name = variant.name
            self.board = Board(variant)
            self.searcher.new_game()
        elif name == "level":
            self.level = get_level(int(value)).number
        elif name == "hash":
            mb = int(value)
            if not MIN_HASH_MB <= mb <= MAX_HASH_MB:
                raise ValueError(f"Hash must be {MIN_HASH_MB} to {MAX_HASH_MB} MiB, not {mb}")
            self.hash_mb = mb
            self.searcher.set_hash(mb)
        elif name == "multipv":
            self.multipv = _multipv(value)
        else:
            self.error(f"unknown option {name!r} (known: Variant, Level, Hash, MultiPV)")

    def cmd_ucinewgame(self, args: list[str]) -> None:
        self.finish()
        self.searcher.new_game()
        self.board = Board(self.variant_name)

    def cmd_position(self, args: list[str]) -> None:
        self.finish()
        if not args:
            raise ValueError("expected: position startpos|fen <FEN> [moves ...]")
        if "moves" in args:
            i = args.index("moves")
            spec, moves = args[:i], args[i + 1 :]
        else:
            spec, moves = args, []
        if spec[0] == "startpos" and len(spec) == 1:
            board = Board(self.variant_name)
        elif spec[0] == "fen" and len(spec) > 1:
            board = Board(self.variant_name, fen=" ".join(spec[1:]))
        else:
            raise ValueError("expected: position startpos|fen <FEN> [moves ...]")
        for text in moves:
            board.push_text(text)
        self.board = board  # only replaced once every move was legal

    def cmd_go(self, args: list[str]) -> None:
        self.finish()
        values: dict[str, int] = {}
        infinite = False
        listed: list[str] | None = None
        i = 0
        while i < len(args):
            word = args[i]
            if word == "infinite":
                infinite = True
                i += 1
            elif word == "searchmoves":
                i += 1
                listed = []
                while i < len(args) and args[i] not in GO_WORDS:
                    listed.append(args[i])
                    i += 1
                if not listed:
                    raise ValueError("searchmoves needs at least one move")
            elif word in GO_INT_FIELDS:
                if i + 1 >= len(args):
                    raise ValueError(f"{word} needs a number")
                number = int(args[i + 1])
                if number < 0:
                    raise ValueError(f"{word} must not be negative")
                values[word] = number
                i += 2
            else:
                raise ValueError(f"unknown go parameter {word!r}")
        if not self.board.raw_moves():
            self.error("the game is over: there is no move to play")
            if infinite:
                # UCI: no bestmove before "stop" in infinite mode, even with nothing to search (a
                # client that reads on to its "readyok" would otherwise miss it: bench/listen.py
                # waited 60 s for a bestmove sent before its "stop")
                self.infinite = True
                self._released.clear()
                self._answered.clear()
                self._thread = threading.Thread(target=self._none_when_released, daemon=True)
                self._thread.start()
                return
            self.send("bestmove (none)")
            return
        searchmoves = self._searchmoves(listed) if listed is not None else None
        lv = get_level(self.level, self.variant_name)
        has_budget = infinite or any(k in values for k in ("depth", "nodes", "movetime", "wtime", "btime"))
        movetime = values.get("movetime")
        if not has_budget:
            movetime = lv.movetime_ms(None)
        elif movetime is None and lv.time_share < 1 and ("wtime" in values or "btime" in values):
            # a weakened level keeps its own move time as a cap on a clock (it was tuned on it);
            # full strength spends what the clock allows (Limits.time_budget)
            movetime = lv.movetime_ms(None)
        limits = Limits(
            depth=values.get("depth"),
            nodes=values.get("nodes"),
            movetime_ms=movetime,
            wtime_ms=values.get("wtime"),
            btime_ms=values.get("btime"),
            winc_ms=values.get("winc", 0),
            binc_ms=values.get("binc", 0),
            movestogo=values.get("movestogo"),
        )
        board = self.board.copy()
        options = lv.options()
        self.infinite = infinite
        self._released.clear()
        self._answered.clear()
        self._thread = threading.Thread(
            target=self._run, args=(board, limits, options, self.multipv, searchmoves), daemon=True
        )
        self._thread.start()

    def _searchmoves(self, listed: list[str]) -> list[Move]:
        """The moves of ``go searchmoves``, each legal here (else an error naming it, and no search)."""
        moves = []
        for text in listed:
            try:
                moves.append(self.board.parse_move(text))
            except ExochessError as exc:
                raise ExochessError(f"searchmoves: {exc}") from None
        return moves

    def _run(
        self,
        board: Board,
        limits: Limits,
        options: SearchOptions,
        multipv: int,
        searchmoves: list[Move] | None,
    ) -> None:
        # The cyclic garbage collector stays off until bestmove is out: the search turns it
        # off while it runs, and the first collection after that walks everything the search
        # allocated (30 to 100 ms after a one-second search), which would delay the answer.
        # Then what the search keeps (its tables and caches: plain data, no reference cycles,
        # freed by reference counting when dropped) is moved out of the collector's sight,
        # so that a full collection, which could otherwise fall in the middle of a later
        # "go" (100 ms or more with the tables of a game), stays small.
        collecting = gc.isenabled()
        gc.disable()
        try:
            self._search_and_answer(board, limits, options, multipv, searchmoves)
        finally:
            self.searcher.release()  # the caches the search dropped, now that bestmove is out
            gc.freeze()
            if collecting:
                gc.enable()

    def _search_and_answer(
        self,
        board: Board,
        limits: Limits,
        options: SearchOptions,
        multipv: int,
        searchmoves: list[Move] | None,
    ) -> None:
        try:
            shown: list[Analysis] = []

            def show(a: Analysis) -> None:
                shown.append(a)
                for line in a.all_lines():  # multipv 1..N, best first
                    self.send(format_info(line))

            result = self.searcher.search(
                board, limits, options=options, on_iteration=show, multipv=multipv, searchmoves=searchmoves
            )
            if not shown or shown[-1].best != result.best:
                # Stopped inside an iteration in which another move had already taken the lead.
                self.send(format_info(result))
            if self.infinite:
                self._released.wait()  # UCI: no bestmove before "stop" in infinite mode
            self.send(f"bestmove {result.best}")
            self._answered.set()
        except Exception as exc:  # never let a search error kill the engine
            self.error(f"search failed: {exc}")
            if self.infinite:
                self._released.wait()  # as above: bestmove only after "stop"
            self.send("bestmove (none)")
            self._answered.set()

    def _none_when_released(self) -> None:
        """An infinite "search" of a finished game: ``bestmove (none)`` once stopped."""
        self._released.wait()
        self.send("bestmove (none)")
        self._answered.set()

    def cmd_stop(self, args: list[str]) -> None:
        self.stop_search()

    def cmd_d(self, args: list[str]) -> None:
        """Debug: the board and its FEN as ``info string`` lines."""
        from exochess.text import render

        for row in render(self.board).splitlines():
            self.send(f"info string {row}")
        self.send(f"info string fen {self.board.fen()}")


def _multipv(value: str) -> int:
    """The value of ``setoption name MultiPV``: a whole number from 1 to :data:`MAX_MULTIPV`."""
    try:
        n = int(value)
    except ValueError:
        raise ValueError(f"MultiPV must be a whole number from 1 to {MAX_MULTIPV}, not {value!r}") from None
    if not 1 <= n <= MAX_MULTIPV:
        raise ValueError(f"MultiPV must be 1 to {MAX_MULTIPV}, not {n}")
    return n


def run(stdin: TextIO, stdout: TextIO) -> int:
    """Serve the protocol until ``quit`` or end of input."""
    serve(EngineProtocol(_line_writer(stdout)), stdin)
    return 0


def serve(session: EngineProtocol, stdin: TextIO) -> None:
    """Feed ``session`` the command lines of ``stdin`` until ``quit`` or end of input."""
    for line in stdin:
        if not session.handle(line):
            return
    session.finish()


def _line_writer(stdout: TextIO) -> Callable[[str], None]:
    def write(line: str) -> None:
        stdout.write(line + "\n")
        stdout.flush()

    return write


def main() -> int:
    """``exochess engine``."""
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    # The session stays referenced here until the process ends: dropping it frees the search's
    # tables by reference counting, in one C call that holds the GIL (10-25 ms after a 10 s
    # search, measured between "quit" and the process's exit), and nothing needs them freed.
    session = EngineProtocol(_line_writer(sys.stdout))
    with contextlib.suppress(KeyboardInterrupt):
        serve(session, sys.stdin)
    # Exit at once after "quit": the interpreter's own teardown (modules, then the tables of
    # the game, hundreds of MiB after a long search) took 100 ms to over a second, and an
    # interface waits for the process to end.  Nothing is left to write or close.
    sys.stdout.flush()
    os._exit(0)
