"""The level ladder from real matches: each level against the one below, and 8 against 1.

    python bench/ladder.py [--variants fugue,interweave,rebelfury] [--games 20]
                           [--movetime 1000] [--top-games 100] [--top-movetime 100]
                           [--rungs 2-8] [--jobs 2]

Every rung ``k vs k-1`` is an ``exochess match`` of ``--games`` games (pairs from
one random 4-ply opening, colours alternating) at ``--movetime`` ms a move for
level 8; the lower levels get their share of it (``engine/levels.py``) but
mostly stop at their depth cap first.  The ``8 vs 1`` row uses ``--top-games``
and ``--top-movetime`` (the issue's "short time control").  Prints a Markdown
table: wins-losses-draws, score and the Elo difference with its 95% interval.

Figures only: nothing is asserted.  Slow: the 8-vs-7 rung dominates (about
``games * 60 plies * 0.75 * movetime``); ``--jobs`` plays games in parallel
processes, which is only fair to the timed level 8 when every job has a core.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

from exochess_lab.match import MatchResult, parse_player, run_match


def cell(result: MatchResult) -> str:
    """``W-L-D (score%, Elo [lo, hi])`` of a finished match, from the stronger side's view."""
    n = len(result.games)
    elo, lo, hi = result.elo()

    def fmt(x: float) -> str:
        if math.isinf(x):
            return "∞" if x > 0 else "-∞"
        return "0" if round(x) == 0 else f"{x:+.0f}"

    percent = 100.0 * result.score / max(1, n)
    return (
        f"{result.wins}-{result.losses}-{result.draws} ({percent:.1f}%, "
        f"Elo {fmt(elo)} [{fmt(lo)}, {fmt(hi)}])"
    )


def parse_rungs(text: str) -> list[int]:
    """``"2-8"`` or ``"3,5,8"``: the upper levels of the rungs to play."""
    if "-" in text:
        low, high = (int(x) for x in text.split("-", 1))
        rungs = list(range(low, high + 1))
    else:
        rungs = [int(x) for x in text.split(",")]
    if not rungs or any(not 2 <= k <= 8 for k in rungs):
        raise SystemExit(f"--rungs must name levels 2-8, not {text!r}")
    return rungs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--variants", default="fugue,interweave,rebelfury")
    parser.add_argument("--games", type=int, default=20, help="games a rung (default 20; 0: none)")
    parser.add_argument("--movetime", type=int, default=1000, help="level 8's ms a move (default 1000)")
    parser.add_argument("--top-games", type=int, default=100, help="games of 8 vs 1 (default 100; 0 skips)")
    parser.add_argument("--top-movetime", type=int, default=100, help="ms a move in 8 vs 1 (default 100)")
    parser.add_argument("--rungs", default="2-8", help="upper levels of the rungs (default 2-8)")
    parser.add_argument("--jobs", type=int, default=1, help="games played in parallel (default 1)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rungs = parse_rungs(args.rungs)
    print(f"ladder: {args.games} games a rung at {args.movetime} ms (level 8's time); "
          f"8 vs 1: {args.top_games} games at {args.top_movetime} ms; seed {args.seed}")
    print()
    print("| variant | match | result (wins-losses-draws of the higher level) | minutes |")
    print("|---|---|---|---|")
    for variant in args.variants.split(","):
        plan = [(k, k - 1, args.games, args.movetime) for k in rungs if args.games]
        if args.top_games:
            plan.append((8, 1, args.top_games, args.top_movetime))
        for high, low, games, movetime in plan:
            started = time.perf_counter()
            result = run_match(
                variant, parse_player(str(high)), parse_player(str(low)), games, movetime,
                seed=args.seed, jobs=args.jobs,
            )
            minutes = (time.perf_counter() - started) / 60
            print(f"| {variant} | {high} vs {low}, {movetime} ms | {cell(result)} | {minutes:.1f} |")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
