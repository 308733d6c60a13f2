"""The level ladder from real matches: each level against the one below, and 8 against 1.

    python bench/ladder.py [--variants NAME,...] [--games 20]
                           [--movetime 1000] [--top-games 100] [--top-movetime 100]
                           [--rungs 2-8] [--jobs 2]
                           [--anchor "cmd:python bench/greedy.py"] [--anchor-elo 500]
                           [--anchor-games 20] [--rung-games 2=10,8=12] [--rung-minutes 3]
                           [--nodes 30000 [--cap-nodes 200000]]

Every rung ``k vs k-1`` is an ``exochess match`` of ``--games`` games (pairs from
one random 4-ply opening, colours alternating) at ``--movetime`` ms a move for
level 8; the lower levels get their share of it (``engine/levels.py``) but
mostly stop at their depth cap first.  The ``8 vs 1`` row uses ``--top-games``
and ``--top-movetime`` (the issue's "short time control").  Prints a Markdown
table: wins-losses-draws, score and the Elo difference with its 95% interval.

Figures only: nothing is asserted.  Slow: the 8-vs-7 rung dominates (about
``games * 60 plies * 0.75 * movetime``); ``--jobs`` plays games in parallel
processes, which is only fair to the timed level 8 when every job has a core.

With ``--anchor`` (a player description, such as the random-but-greedy
``cmd:python bench/greedy.py``), level 1 also plays ``--anchor-games`` games against it,
and a second table chains the rungs into one scale per game: the anchor is fixed at
``--anchor-elo``, level 1 is that plus its result against the anchor, level k is level
k-1 plus the rung ``k vs k-1``.  A rung won or lost 100% has no finite estimate; it is
counted as if the loser had scored half a game (said so in the table).  The intervals
add up along the chain (the rungs' variances are summed), so the top levels' are widest.
``--rung-games 2=10,8=12`` sets the games of single rungs (the others use ``--games``).
``--rung-minutes`` ends a rung after the first complete pair played past that many minutes
(a CPU budget: the table says how many games each rung got).

``--nodes N`` budgets moves in nodes instead of time, which a loaded machine does not change:
level 8 searches N nodes a move, levels 1-7 stop at their depth (``engine/levels.py``) or at
``--cap-nodes``, whichever comes first (on the site levels 1-7 have the time to reach their
depth; level 8 thinks longer there than N nodes).
"""

from __future__ import annotations

import argparse
import math
import sys
import time

from exochess.variants import all_variants
from exochess_lab.match import GameResult, MatchResult, elo_from_score, parse_player, run_match

Z95 = 1.96


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


def rung_elo(result: MatchResult) -> tuple[float, float, bool]:
    """(Elo difference, its standard error, clamped) of a match from the first player's view.

    A score of 0% or 100% counts half a game for the other side (``clamped``), so that the
    chain stays finite.
    """
    n = max(1, len(result.games))
    scores = [result.a_score(g) for g in result.games]
    mean = sum(scores) / n
    clamped = mean <= 0.0 or mean >= 1.0
    mean = min(max(mean, 0.5 / n), 1 - 0.5 / n)
    var = sum((x - mean) ** 2 for x in scores) / max(1, n - 1) if n > 1 else 0.25
    var = max(var, mean * (1 - mean) / 2)  # a floor: an all-draws rung still says little
    se_score = math.sqrt(var / n)
    slope = 400 / math.log(10) / (mean * (1 - mean))  # d Elo / d score at the mean
    return elo_from_score(mean), slope * se_score, clamped


class _OutOfTime(Exception):
    """Raised by a rung's game callback when its minutes are spent (after a complete pair)."""


def play_rung(
    variant: str,
    high: str,
    low: str,
    games: int,
    movetime: int,
    seed: int,
    jobs: int,
    minutes: float | None,
) -> MatchResult:
    """A rung's match, cut after the first complete pair past ``minutes`` (None: all games)."""
    started = time.perf_counter()
    played: list[GameResult] = []

    def on_game(game: GameResult) -> None:
        played.append(game)
        if minutes is not None and len(played) % 2 == 0 and time.perf_counter() - started > 60 * minutes:
            raise _OutOfTime

    try:
        return run_match(
            variant,
            parse_player(high),
            parse_player(low),
            games,
            movetime,
            seed=seed,
            jobs=jobs,
            on_game=on_game,
        )
    except _OutOfTime:
        return MatchResult(played)


def parse_counts(text: str) -> dict[int, int]:
    """``"2=10,8=12"``: games of single rungs, by their upper level."""
    counts: dict[int, int] = {}
    for part in filter(None, text.split(",")):
        k, _, n = part.partition("=")
        counts[int(k)] = int(n)
    return counts


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
    parser.add_argument("--variants", default=",".join(v.name for v in all_variants()))  # every game
    parser.add_argument("--games", type=int, default=20, help="games a rung (default 20; 0: none)")
    parser.add_argument("--movetime", type=int, default=1000, help="level 8's ms a move (default 1000)")
    parser.add_argument("--top-games", type=int, default=100, help="games of 8 vs 1 (default 100; 0 skips)")
    parser.add_argument("--top-movetime", type=int, default=100, help="ms a move in 8 vs 1 (default 100)")
    parser.add_argument("--rungs", default="2-8", help="upper levels of the rungs (default 2-8)")
    parser.add_argument("--jobs", type=int, default=1, help="games played in parallel (default 1)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--anchor", default="", help="level 1's opponent: 'cmd:python bench/greedy.py'")
    parser.add_argument("--anchor-elo", type=float, default=500.0, help="the anchor's fixed rating (500)")
    parser.add_argument("--anchor-games", type=int, default=20, help="games of level 1 vs the anchor (20)")
    parser.add_argument("--anchor-movetime", type=int, default=100, help="ms a move vs the anchor (100)")
    parser.add_argument("--rung-games", default="", help="games of single rungs: '2=10,8=12'")
    parser.add_argument("--rung-minutes", type=float, default=None, help="a rung's time budget")
    parser.add_argument("--nodes", type=int, default=0, help="level 8's nodes a move (0: time)")
    parser.add_argument("--cap-nodes", type=int, default=200_000, help="levels 1-7's cap with --nodes")
    args = parser.parse_args(argv)
    rungs = parse_rungs(args.rungs)
    counts = parse_counts(args.rung_games)
    if args.nodes:
        print(
            f"budgets in nodes: level 8 {args.nodes:,} a move, levels 1-7 their depth or "
            f"{args.cap_nodes:,} (the ms below do not apply)"
        )
    print(
        f"ladder: {args.games} games a rung at {args.movetime} ms (level 8's time); "
        f"8 vs 1: {args.top_games} games at {args.top_movetime} ms; seed {args.seed}"
    )
    print()
    print("| variant | match | result (wins-losses-draws of the higher level) | minutes |")
    print("|---|---|---|---|")

    def player(level: str) -> str:
        if not args.nodes or not level.isdigit():
            return level
        return f"level={level},nodes={args.nodes if level == '8' else args.cap_nodes}"

    chains: dict[str, dict[int, tuple[float, float, bool]]] = {}
    for variant in args.variants.split(","):
        plan: list[tuple[str, str, int, int]] = []
        if args.anchor and args.anchor_games:
            plan.append(("1", args.anchor, args.anchor_games, args.anchor_movetime))
        plan += [(str(k), str(k - 1), counts.get(k, args.games), args.movetime) for k in rungs]
        plan = [p for p in plan if p[2] > 0]
        if args.top_games:
            plan.append(("8", "1", args.top_games, args.top_movetime))
        chain = chains.setdefault(variant, {})
        for high, low, games, movetime in plan:
            started = time.perf_counter()
            result = play_rung(
                variant, player(high), player(low), games, movetime, args.seed, args.jobs, args.rung_minutes
            )
            minutes = (time.perf_counter() - started) / 60
            name = "anchor" if low == args.anchor else low
            print(f"| {variant} | {high} vs {name}, {movetime} ms | {cell(result)} | {minutes:.1f} |")
            sys.stdout.flush()
            if high.isdigit() and (low == args.anchor or int(low) == int(high) - 1):
                chain[int(high)] = rung_elo(result)
    if args.anchor:
        print_scale(chains, args.anchor_elo)
    return 0


def print_scale(chains: dict[str, dict[int, tuple[float, float, bool]]], anchor_elo: float) -> None:
    """The chained ratings: level k = anchor + the rungs up to k, with 95% intervals."""
    print()
    print(
        f"Ratings (the anchor fixed at {anchor_elo:.0f}; ± is the 95% interval of the chain; "
        "* a rung won or lost 100%, counted as if the loser had half a game)"
    )
    print()
    print("| variant | " + " | ".join(f"level {k}" for k in range(1, 9)) + " |")
    print("|---|" + "---|" * 8)
    for variant, chain in chains.items():
        cells = []
        rating, var, broken = anchor_elo, 0.0, False
        for k in range(1, 9):
            if k not in chain or broken:
                broken = True
                cells.append("?")
                continue
            diff, se, clamped = chain[k]
            rating += diff
            var += se * se
            cells.append(f"{rating:.0f} ± {Z95 * math.sqrt(var):.0f}{'*' if clamped else ''}")
        print(f"| {variant} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(main())
