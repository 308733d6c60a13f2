"""An engine program driven through the engine protocol (docs/protocol.md), for a bot: one
process per game, asked for a move with the game's clocks.

Any program that speaks the protocol will do (``exochess engine`` is ours); it is started with
``setoption name Variant`` (and ``Level`` when given), then each turn gets ``position`` and
``go wtime ... btime ... winc ... binc ...`` (``go movetime`` in a game without a clock) and
answers ``bestmove``.
"""

from __future__ import annotations

import contextlib
import queue
import shlex
import subprocess
import sys
import threading
from collections.abc import Sequence

from exochess.errors import ExochessError

NO_CLOCK_MS = 2_147_483_647
"""The clocks of a game without one, as the API gives them."""
UNTIMED_MOVE_MS = 1000
"""Thinking time of a move in a game without a clock (or a correspondence game)."""
SAFETY_MS = 300
"""Taken off the bot's clock before the engine sees it: the move's trip to the site."""
REPLY_GRACE_S = 30.0
"""Seconds past its own time an engine may take to answer before it is given up."""


def default_command() -> list[str]:
    """This package's own engine (``exochess engine``) in this Python."""
    return [sys.executable, "-m", "exochess.cli.main", "engine"]


class EngineError(ExochessError):
    """The engine program failed, or answered out of protocol."""


class ProtocolEngine:
    """One engine process speaking the protocol."""

    def __init__(self, command: Sequence[str] | str, variant: str, level: int | None = None) -> None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                bufsize=1,
            )
        except OSError as exc:
            raise EngineError(f"cannot start the engine {argv[0]!r}: {exc}") from exc
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send("uci")
        self.wait_for("uciok", 30.0)
        self.send(f"setoption name Variant value {variant}")
        if level is not None:
            self.send(f"setoption name Level value {level}")
        self.send("isready")
        self.wait_for("readyok", 30.0)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for text in self.proc.stdout:
            self.lines.put(text.rstrip("\n"))
        self.lines.put(None)

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(text + "\n")
            self.proc.stdin.flush()
        except OSError as exc:
            raise EngineError(f"the engine stopped: {exc}") from exc

    def wait_for(self, word: str, timeout_s: float) -> str:
        """The first line starting with ``word`` (the lines before it are dropped)."""
        while True:
            try:
                text = self.lines.get(timeout=timeout_s)
            except queue.Empty:
                raise EngineError(f"the engine did not answer {word!r} in {timeout_s:g} s") from None
            if text is None:
                raise EngineError(f"the engine exited before answering {word!r}")
            if text.startswith("info string error"):
                raise EngineError(f"the engine refused a command: {text[18:]}")
            if text.split(" ", 1)[0] == word:
                return text

    def best_move(
        self,
        initial_fen: str,
        moves: Sequence[str],
        wtime: int,
        btime: int,
        winc: int,
        binc: int,
        white: bool,
    ) -> str:
        """The engine's move in the game so far (``initial_fen``: ``startpos`` or a FEN) with
        these clocks (ms), for the side ``white`` or not."""
        start = "startpos" if initial_fen == "startpos" else f"fen {initial_fen}"
        self.send(f"position {start}" + (f" moves {' '.join(moves)}" if moves else ""))
        mine = wtime if white else btime
        if mine >= NO_CLOCK_MS:
            self.send(f"go movetime {UNTIMED_MOVE_MS}")
            budget_s = UNTIMED_MOVE_MS / 1000
        else:
            w = max(1, wtime - SAFETY_MS) if white else wtime
            b = btime if white else max(1, btime - SAFETY_MS)
            self.send(f"go wtime {w} btime {b} winc {winc} binc {binc}")
            budget_s = mine / 1000
        answer = self.wait_for("bestmove", budget_s + REPLY_GRACE_S)
        parts = answer.split()
        if len(parts) < 2 or parts[1] in ("(none)", "0000"):
            raise EngineError(f"the engine found no move: {answer!r}")
        return parts[1]

    def close(self) -> None:
        with contextlib.suppress(EngineError):
            self.send("quit")
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
