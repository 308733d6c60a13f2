"""An engine in another process, spoken to through the engine protocol (``docs/protocol.md``).

Used by matches to play a frozen build (another checkout's ``exochess engine``)
against the current one.  Every wait has a deadline and every failure (the
command does not start, the engine exits, answers ``info string error``, or
stays silent) raises :class:`ExternalEngineError` naming the command, so a
match never hangs on a broken opponent.
"""

from __future__ import annotations

import contextlib
import queue
import shlex
import subprocess
import threading
from collections import deque
from collections.abc import Callable, Sequence
from types import TracebackType

from exochess.errors import ExochessError

START_TIMEOUT_S = 300.0
"""Time for the engine to start and answer ``uciok`` / ``readyok`` (a cold Python start on a busy machine).

Matches run under ``nice -n 19``; beside processes at normal priority such an engine gets a
few percent of a core, and an Interweave SPRT run stopped at its fourth pair when the baseline
took over 60 s to import (26 Nov 2026, load average 14).  A wrong command still fails at once:
it exits, which is seen without waiting."""
MOVE_MARGIN_S = 60.0
"""Added to the move budget before a silent engine is given up (node budgets have no time at all)."""


class ExternalEngineError(ExochessError):
    """The external engine could not be started, broke the protocol or stopped answering."""


class ExternalEngine:
    """One running engine process, set up for one game and one level."""

    def __init__(self, command: Sequence[str], variant: str, level: int = 8) -> None:
        if not command:
            raise ExternalEngineError("empty engine command")
        self.name = shlex.join(command)
        try:
            self._proc = subprocess.Popen(
                list(command),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                bufsize=1,
            )
        except OSError as exc:
            raise ExternalEngineError(f"cannot start engine {self.name!r}: {exc.strerror or exc}") from None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=5)
        # Reader threads: a pipe read has no timeout of its own, a queue get has.
        self._readers = [
            threading.Thread(target=self._pump, daemon=True),
            threading.Thread(target=self._pump_stderr, daemon=True),
        ]
        for reader in self._readers:
            reader.start()
        try:
            self.send("uci")
            self.expect(lambda line: line == "uciok", START_TIMEOUT_S, "uciok")
            self.send(f"setoption name Variant value {variant}")
            self.send(f"setoption name Level value {level}")
            self.send("ucinewgame")
            self.send("isready")
            self.expect(lambda line: line == "readyok", START_TIMEOUT_S, "readyok")
        except BaseException:
            self.close()
            raise

    def _pump(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def _pump_stderr(self) -> None:
        assert self._proc.stderr is not None
        for line in self._proc.stderr:
            self._stderr.append(line.rstrip("\n"))

    def _failure(self, what: str) -> ExternalEngineError:
        tail = " | ".join(self._stderr)
        return ExternalEngineError(f"engine {self.name!r}: {what}" + (f" (stderr: {tail})" if tail else ""))

    def send(self, line: str) -> None:
        """Write one command line."""
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(line + "\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._failure(f"exited (status {self._proc.poll()}) before {line.split()[0]!r}") from None

    def expect(self, wanted: Callable[[str], bool], timeout_s: float, what: str) -> str:
        """Read lines until one is ``wanted`` and return it; errors, exit and silence raise."""
        while True:
            try:
                line = self._lines.get(timeout=timeout_s)
            except queue.Empty:
                raise self._failure(f"no {what} within {timeout_s:g} s") from None
            if line is None:
                self._proc.wait(timeout=5)
                raise self._failure(f"exited (status {self._proc.returncode}) while {what} was awaited")
            if line.startswith("info string error"):
                raise self._failure(line.removeprefix("info string error").strip())
            if wanted(line):
                return line

    def best_move(
        self,
        moves: Sequence[str],
        *,
        movetime_ms: int | None = None,
        nodes: int | None = None,
        depth: int | None = None,
    ) -> str:
        """The engine's move after ``moves`` from the start, with the given budget."""
        self.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        go = ["go"]
        for key, value in (("depth", depth), ("nodes", nodes), ("movetime", movetime_ms)):
            if value is not None:
                go += [key, str(value)]
        self.send(" ".join(go))
        timeout = (movetime_ms or 0) / 1000 * 2 + MOVE_MARGIN_S
        answer = self.expect(lambda line: line.startswith("bestmove"), timeout, "bestmove").split()
        if len(answer) < 2 or answer[1] == "(none)":
            raise self._failure(f"answered {' '.join(answer)!r} in a position with legal moves")
        return answer[1]

    def close(self) -> None:
        """Ask the engine to quit; kill it if it does not within a few seconds."""
        if self._proc.poll() is None:
            with contextlib.suppress(ExternalEngineError):
                self.send("quit")
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        # The readers end at the pipes' end of file, which follows the exit; only then are the
        # pipes closed (closing one under a blocked read would raise in the reader thread).
        for reader in self._readers:
            reader.join(timeout=5)
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):  # unflushed input to an engine that has died
                    stream.close()

    def __enter__(self) -> ExternalEngine:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
