"""Move-time bench: does ``go movetime M`` answer in time, and from how deep a search?

    python bench/movetime.py [--positions N] [--movetime MS] [--variants fugue,interweave,...]
                             [--seed S] [--level L] [--show-late]

For every game, N positions (default 1,000) are taken from seeded self-play
games (each move chosen by a small node-bounded search at a random level from
1 to 4, so the positions are the kind a real game reaches, captures and all).
Each position is then sent to one ``exochess engine`` process over the engine
protocol as ``position startpos moves ...`` (the game's history included, which
matters in games that forbid repetition), followed by ``go movetime M``.  The
answer time runs from the moment the ``go`` line is written to the moment the
``bestmove`` line is read, so the pipe and the protocol are counted too.

It prints, per game: the worst overrun (answer time minus M), the percentiles
of the answer time, how many answers came later than M + 50 ms, and the share
of answers from a completed search of depth >= 1 and >= 2 (the depth of the
last ``info`` line before ``bestmove``).

Figures only: nothing is asserted.  On a loaded machine the wall-clock figures
include other processes' time; say so when quoting them.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from exochess import Board, all_variants
from exochess.engine import Limits, Searcher
from exochess.engine.levels import level
from exochess.errors import UnknownVariantError
from exochess.variants import find_variant

LATE_MS = 50
"""An answer later than the move time plus this is counted as late."""


def self_play_positions(variant: str, count: int, seed: int) -> list[list[str]]:
    """``count`` distinct positions from seeded self-play, each as the move texts from the start.

    Moves are chosen by a 150-node search at a random level 1-4 (noise makes the games
    differ); a game ends at its natural end or after 160 plies.  Positions are then drawn
    at random among all the positions of all the games (the start position included once).
    """
    rng = random.Random(seed)
    seen: set[str] = set()
    found: list[list[str]] = []
    searcher = Searcher()
    # Enough games to draw from: every position of a game is a candidate.
    while len(found) < count * 3:
        board = Board(variant)
        searcher.new_game()
        moves: list[str] = []
        for _ply in range(160):
            if board.is_game_over():
                break
            fen = board.fen()
            if fen not in seen:
                seen.add(fen)
                found.append(list(moves))
            lv = level(rng.randint(1, 4), variant)
            move = searcher.search(
                board, Limits(nodes=150), options=lv.options(), seed=rng.getrandbits(32)
            ).best
            board.push(move)
            moves.append(str(move))
        if len(found) >= count * 3 or len(seen) > 200_000:
            break
    return rng.sample(found, min(count, len(found)))


class Engine:
    """One ``exochess engine`` subprocess spoken to over pipes."""

    def __init__(self) -> None:
        exe = Path(sys.executable).with_name("exochess")
        command = [str(exe), "engine"] if exe.exists() else [sys.executable, "-m", "exochess", "engine"]
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read_until(self, prefix: str) -> list[str]:
        assert self.proc.stdout is not None
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the engine exited")
            line = line.strip()
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def close(self) -> None:
        self.send("quit")
        self.proc.wait(timeout=30)


def last_depth(lines: list[str]) -> int:
    """The depth of the last ``info depth`` line (0 when there is none)."""
    depth = 0
    for line in lines:
        words = line.split()
        if words[:2] == ["info", "depth"]:
            depth = int(words[2])
    return depth


def cpu_pressure() -> str:
    """Linux's CPU pressure of the last minute (the share of time some task waited for a core)."""
    try:
        line = Path("/proc/pressure/cpu").read_text().splitlines()[0]
    except (OSError, IndexError):
        return ""
    fields = dict(word.split("=", 1) for word in line.split()[1:])
    return f"; tasks waited for a core {fields.get('avg60', '?')}% of the last minute"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run_game(
    variant: str, positions: int, movetime: int, seed: int, lv: int, show_late: bool = False
) -> None:
    started = time.perf_counter()
    games = self_play_positions(variant, positions, seed)
    prepared = time.perf_counter() - started
    cpu_before = os.times()
    engine = Engine()
    engine.send(f"setoption name Variant value {variant}")
    engine.send(f"setoption name Level value {lv}")
    times: list[float] = []
    depths: list[int] = []
    forced: list[bool] = []
    worst = ""
    try:
        for moves in games:
            engine.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
            engine.send("isready")
            engine.read_until("readyok")  # the position is set up before the clock starts
            t0 = time.perf_counter()
            engine.send(f"go movetime {movetime}")
            lines = engine.read_until("bestmove")
            elapsed = (time.perf_counter() - t0) * 1000
            errors = [line for line in lines if line.startswith("info string error")]
            if errors or lines[-1] == "bestmove (none)":
                raise RuntimeError(f"{variant}: {moves}: {errors or lines[-1]}")
            if not times or elapsed > max(times):
                worst = " ".join(moves[-4:])
            if show_late and elapsed > movetime + LATE_MS:
                print(f"  late: position {len(times)}, {elapsed:.1f} ms, after ...{' '.join(moves[-4:])}")
            times.append(elapsed)
            depths.append(last_depth(lines))
            board = Board(variant)
            for text in moves:
                board.push_text(text)
            forced.append(len(board.legal_moves) == 1)
    finally:
        engine.close()
    cpu_after = os.times()
    # The engine's CPU time (a waited-for child) over the wall time of its answers: the share
    # of a core it got.  Well under 100% means other processes held the cores.
    cpu = (cpu_after.children_user + cpu_after.children_system) - (
        cpu_before.children_user + cpu_before.children_system
    )
    n = len(times)
    load = os.getloadavg()[0]
    late = sum(1 for t in times if t > movetime + LATE_MS)
    print(
        f"{variant}: {n} positions from self-play ({prepared:.0f} s to play them), go movetime {movetime}, "
        f"level {lv}, load average {load:.1f} on {os.cpu_count()} cores"
    )
    print(
        f"  answer ms  p50 {percentile(times, 0.5):.1f}  p90 {percentile(times, 0.9):.1f}  "
        f"p99 {percentile(times, 0.99):.1f}  max {max(times):.1f}  (mean {statistics.fmean(times):.1f})"
    )
    print(f"  worst overrun {max(times) - movetime:+.1f} ms (position after ...{worst})")
    print(f"  later than movetime + {LATE_MS} ms: {late} of {n}")
    free = [d for d, f in zip(depths, forced, strict=True) if not f]
    print(
        f"  depth >= 1: {100 * sum(d >= 1 for d in depths) / n:.1f}%   "
        f"depth >= 2: {100 * sum(d >= 2 for d in depths) / n:.1f}%   "
        f"median depth {statistics.median(depths):g}, max {max(depths)}"
    )
    if len(free) < n:
        print(
            f"  ({n - len(free)} positions had one legal move, answered after depth 1; "
            f"depth >= 2 among the others: {100 * sum(d >= 2 for d in free) / max(1, len(free)):.1f}%)"
        )
    share = 100 * cpu / (sum(times) / 1000)
    print(
        f"  the engine had {share:.0f}% of a core while it answered (its start-up included){cpu_pressure()}"
    )
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--positions", type=int, default=1000, help="positions per game (default 1000)")
    parser.add_argument("--movetime", type=int, default=200, help="go movetime MS (default 200)")
    parser.add_argument("--variants", default=",".join(v.name for v in all_variants()))
    parser.add_argument("--seed", type=int, default=1, help="seed of the self-play games (default 1)")
    parser.add_argument("--level", type=int, default=8, choices=range(1, 9), help="engine level (default 8)")
    parser.add_argument("--show-late", action="store_true", help="print every late answer as it comes")
    args = parser.parse_args(argv)
    if args.positions < 1 or args.movetime < 1:
        parser.error("--positions and --movetime must be positive")
    try:
        variants = [find_variant(v).name for v in args.variants.split(",") if v]
    except UnknownVariantError as exc:
        parser.error(str(exc))
    for variant in variants:
        run_game(variant, args.positions, args.movetime, args.seed, args.level, args.show_late)
    return 0


if __name__ == "__main__":
    sys.exit(main())
