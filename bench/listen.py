"""How fast the engine answers ``isready``, ``stop`` and ``quit`` while it searches (issue 48).

    python bench/listen.py [--variants NAME,...] [--builds control,pure,compiled]
                           [--searches 20] [--polls 10] [--quits 10] [--quit-after 2]
                           [--compiled-path build/compiled] [--quick]

For each build and game, an ``exochess engine`` process searches ``go infinite`` from
positions of a game (the start, then the position after each answer, so that later searches
are in the middlegame); during each search ``--polls`` ``isready`` are sent at random moments
0.05-0.25 s apart, then ``stop``.  A latency is the time from writing the command to reading
its answer (``readyok``; ``bestmove``).  ``quit`` is sent during a search: the time until the
process has exited.  It is timed once at the end of those searches (the tables full of a long
session), and ``--quits`` more times a game, each in a fresh process after ``--quit-after``
seconds of ``go infinite`` from a position of the session.  Prints p50/p99/max per build and
game.  The defaults take about 10 minutes; ``--quick`` (5 searches of 8 polls, 40 ``isready``
and 4 ``quit`` a game) about 2.

The pure build is the editable install (``EXOCHESS_PURE=1``); the compiled build is
``--compiled-path`` first on PYTHONPATH (``make compiled``).  The ``control`` build is no engine:
a small Python program that answers the same commands while a second thread keeps a core busy
in C code that holds no GIL (hashing).  Nothing in it waits for the GIL, so its latencies are
those of the machine itself (the scheduler of a loaded machine): the floor for the others.
Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from exochess.variants import all_variants

ROOT = Path(__file__).resolve().parent.parent


CONTROL = r"""
import hashlib, sys, threading
busy = threading.Event()
def burn():
    data = b"x" * 4_000_000
    while True:
        busy.wait()
        hashlib.sha256(data).digest()  # releases the GIL while it hashes
threading.Thread(target=burn, daemon=True).start()
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "uci": print("uciok", flush=True)
    elif word == "isready": print("readyok", flush=True)
    elif word == "go": busy.set(); print("info depth 1", flush=True)
    elif word == "stop": busy.clear(); print("bestmove 0000", flush=True)
    elif word == "quit": break
"""
"""The control build: answers like an engine, burns a core without holding the GIL."""


class Engine:
    """An engine process and a thread that stamps each line it writes."""

    def __init__(self, env: dict[str, str], control: bool = False) -> None:
        command = (
            [sys.executable, "-c", CONTROL]
            if control
            else [str(Path(sys.executable).parent / "exochess"), "engine"]
        )
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
            env=env,
        )
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put((time.perf_counter(), line.strip()))

    def send(self, line: str) -> float:
        assert self.proc.stdin is not None
        sent = time.perf_counter()
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return sent

    def wait_for(self, prefix: str, timeout: float = 60.0) -> tuple[float, str]:
        deadline = time.monotonic() + timeout
        while True:
            at, line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            if line.startswith(prefix):
                return at, line


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def measure(
    variant: str,
    env: dict[str, str],
    searches: int,
    polls: int,
    rng: random.Random,
    quits: int = 0,
    quit_after: float = 2.0,
) -> dict[str, list[float]]:
    """Latencies in ms: isready, stop, quit."""
    out: dict[str, list[float]] = {"isready": [], "stop": [], "quit": []}
    engine = started(env, variant)
    engine.send("isready")
    engine.wait_for("readyok")
    moves: list[str] = []
    for _ in range(searches):
        engine.send(position(moves))
        engine.send("go infinite")
        time.sleep(0.3)  # past the first iterations
        for _ in range(polls):
            time.sleep(rng.uniform(0.05, 0.25))
            sent = engine.send("isready")
            at, _line = engine.wait_for("readyok")
            out["isready"].append((at - sent) * 1000)
        sent = engine.send("stop")
        at, line = engine.wait_for("bestmove")
        out["stop"].append((at - sent) * 1000)
        best = line.split()[1]
        if best == "(none)":
            moves = []
        else:
            moves.append(best)
    out["quit"].append(quit_during_search(engine, moves, 0.5))
    for i in range(quits):
        earlier = moves[: i % (len(moves) + 1)]  # a position of the session, a different one each time
        out["quit"].append(quit_during_search(started(env, variant), earlier, quit_after))
    return out


def started(env: dict[str, str], variant: str) -> Engine:
    """An engine process past ``uci``, set to ``variant``."""
    engine = Engine(env, control=env.get("LISTEN_CONTROL") == "1")
    engine.send("uci")
    engine.wait_for("uciok")
    engine.send(f"setoption name Variant value {variant}")
    return engine


def position(moves: list[str]) -> str:
    """The ``position`` command of the start followed by ``moves``."""
    return "position startpos" + (" moves " + " ".join(moves) if moves else "")


def quit_during_search(engine: Engine, moves: list[str], search_s: float) -> float:
    """Milliseconds from ``quit``, sent ``search_s`` into a ``go infinite``, to the process's exit."""
    engine.send(position(moves))
    engine.send("go infinite")
    time.sleep(search_s)
    watchdog = threading.Timer(60.0, engine.proc.kill)  # a hung engine ends the wait
    watchdog.start()
    sent = engine.send("quit")
    # no timeout: Popen.wait(timeout) polls with doubling sleeps (0.5, 1, 2 ... 50 ms), which
    # rounds an exit up to 7.5, 15.5, 31.5 or 63.5 ms; a blocking waitpid returns at once
    engine.proc.wait()
    elapsed = (time.perf_counter() - sent) * 1000
    watchdog.cancel()
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--variants", default=",".join(v.name for v in all_variants()))  # every game
    parser.add_argument("--builds", default="control,pure,compiled")
    parser.add_argument("--searches", type=int, default=20, help="go infinite ... stop cycles a game (20)")
    parser.add_argument("--polls", type=int, default=10, help="isready a search (10)")
    parser.add_argument("--compiled-path", default=str(ROOT / "build" / "compiled"))
    parser.add_argument("--quits", type=int, default=10, help="more quits a game, each in a new process (10)")
    parser.add_argument("--quit-after", type=float, default=2.0, help="seconds of search before those (2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--quick", action="store_true", help="5 searches of 8 polls, 4 quits a game: about 2 minutes"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.searches, args.polls, args.quits = 5, 8, 3
    rng = random.Random(args.seed)
    print(f"listen: {args.searches} searches a game, {args.polls} isready each; latencies in ms")
    print()
    columns = ("build", "game", *(f"{c} p50 / p99 / max (n)" for c in ("isready", "stop", "quit")))
    print("| " + " | ".join(columns) + " |")
    print("|---|---|---|---|---|")
    for build in args.builds.split(","):
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        env.pop("EXOCHESS_PURE", None)
        if build == "pure":
            env["EXOCHESS_PURE"] = "1"
        elif build == "control":
            env["LISTEN_CONTROL"] = "1"
        else:
            env["PYTHONPATH"] = args.compiled_path
        for variant in args.variants.split(","):
            lat = measure(variant, env, args.searches, args.polls, rng, args.quits, args.quit_after)

            def fmt(xs: list[float]) -> str:
                return f"{statistics.median(xs):.1f} / {percentile(xs, 99):.1f} / {max(xs):.1f} ({len(xs)})"

            print(
                f"| {build} | {variant} | {fmt(lat['isready'])} | {fmt(lat['stop'])} | {fmt(lat['quit'])} |"
            )
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
