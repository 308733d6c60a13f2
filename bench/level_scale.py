"""Each level's rating on one Elo scale per game, from the ladder's rungs: the recipe of levels.ELO.

    python bench/level_scale.py            (prints the table and the ELO dict for engine/levels.py)

The rungs below are match results (wins-losses-draws of the higher level), each with where it
comes from: ``bench/data/ladder/*.txt`` records of 29 Nov 2026 (issue 48, ``bench/ladder.py``
with the command in each file's first line) or the ladder tables of ``docs/benchmarks.md``
("Levels: the ladder", "Strength") when a rung could not be replayed within the CPU budget.
Levels 1-3 were redefined (lapses, ``engine/levels.py``) after the first records, so the rungs
that touch them (the anchor to 1, 2 to 1, 3 to 2, 4 to 3) come only from the ``lapses*-*``
records, each rung from a match between the two levels as they are now; Interweave's and Rebel
Fury's levels were remade after (issue 48), and their rungs are match records of
``bench/data/matches/`` (``*-ladder-*``; the ``*-trial-*`` records are the tries that chose them).
Where several matches played the same rung they are pooled (added up).  The anchor is a
random-but-greedy player (``bench/greedy.py``) fixed at :data:`ANCHOR_ELO`; each game's players
form a chain, level 1 the anchor plus its result against it, each next player the one before
plus the rung between them.  A chain's players are its levels and, in Interweave, two players
between levels (:data:`LEVEL_STEPS`); a rung read from a match record of ``bench/data/matches/``
is counted from its games (:func:`match_rung`).  A rung won
100% is counted as if the loser had scored half a game (no finite estimate otherwise), and the
95% intervals add up along the chain (variances summed).  Ratings are rounded to 10.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from exochess_lab.record import read_record

ANCHOR_ELO = 500
"""The greedy player's fixed rating: arbitrary, chosen so that level 1 lands where a player who
has just learnt the rules might (a few hundred points above nothing)."""

Rung = tuple[int, int, int, str]
"""(wins, losses, draws) of the higher level, and the source."""

FUGUE_LADDER = "bench/data/ladder/levels-2026-11-29.txt"
LOW_RUNGS = "bench/data/ladder/low-rungs-2026-11-29.txt"
DOCS = "docs/benchmarks.md"
FIRST = "bench/data/ladder/lapses1-{}-2026-11-29.txt"
"""The first ladder of the levels with lapses: its anchor rung and any rung whose two levels did
not change after it."""
SECOND = "bench/data/ladder/lapses2-{}-2026-11-29.txt"
"""The rungs of levels 2-4 again, after levels 2-3 were given fewer lapses."""
SIXTH = "bench/data/ladder/lapses6-{}-2026-11-29.txt"
"""Interweave's rungs 3 and 4 with its level 3 at depth 3 and 10% of lapses (``lapses3-`` to
``lapses5-interweave`` are of levels 3 that were dropped: depth 3 with 25% of lapses, no better
than level 2; depth 2 without lapses, 512 Elo below level 4; depth 3 with 5%, 17 below it)."""
VCHESS = "bench/data/ladder/vchess-{}-2026-11-29.txt"
UPPER = "bench/data/ladder/upper-rungs-2026-11-29.txt"
"""More games of the upper rungs (20 each, the node budgets of the first run): Interweave 5-7 and
Fugue 5-7.  Its Interweave 8 vs 7 (4-16) is left out: at 15,000 nodes a move level 8 searches
less than level 7 does (depth 6, up to 100,000 nodes), so it measures the budgets, not level 8
as the site plays it (3 s a move)."""

MATCHES = Path(__file__).resolve().parent / "data" / "matches"
"""Match records (``exochess match --record``): a rung read from one is counted from its games."""


def match_rung(name: str) -> Rung:
    """The rung of a match record in ``bench/data/matches/``: player A's wins, losses and draws
    (A is the higher configuration of the rung; the record's first line has the command's
    settings)."""
    _settings, games = read_record(MATCHES / name)
    scores = [g.score if g.white == "a" else 1.0 - g.score for g in games]
    return (scores.count(1.0), scores.count(0.0), scores.count(0.5), f"bench/data/matches/{name}")


RUNGS: dict[str, dict[str, list[Rung]]] = {
    "fugue": {
        "1": [(37, 3, 0, FIRST.format("fugue"))],
        "2": [(38, 2, 0, SECOND.format("fugue"))],
        "3": [(35, 5, 0, SECOND.format("fugue"))],
        "4": [(37, 2, 1, FIRST.format("fugue"))],
        "5": [(18, 2, 0, FUGUE_LADDER), (17, 3, 0, UPPER)],
        "6": [(14, 0, 0, FUGUE_LADDER), (17, 3, 0, UPPER)],
        "7": [
            (2, 0, 0, FUGUE_LADDER),
            (6, 3, 1, DOCS + ", re-measured after the stronger level 8, 500 ms"),
            (19, 1, 0, UPPER),
        ],
        # at the site's 3 s and 2 s as node budgets (at 500 ms a move it had been 8-2)
        "8": [
            match_rung("fugue-ladder-8v7-3s-2s-seed100.txt"),
            match_rung("fugue-ladder-8v7-3s-2s-seed118.txt"),
        ],
    },
    "interweave": {
        # the chain runs through every configuration measured; LEVEL_STEPS says which are levels
        "1": [(30, 10, 0, FIRST.format("interweave"))],
        "2": [match_rung("interweave-ladder-2v1-seed78.txt")],
        "3": [match_rung("interweave-ladder-3v2-seed79.txt")],
        # records made before the levels were renumbered: their levels 2, 3, 4, 5, 6 and 7 are
        # now levels 3 and 4, "depth 3", level 5, "depth 5" and level 7
        "4": [(34, 6, 0, SIXTH.format("interweave"))],
        "depth 3": [(26, 14, 0, SIXTH.format("interweave"))],
        "5": [(4, 2, 0, LOW_RUNGS), (4, 2, 0, DOCS + ", replay, 500 ms"), (14, 6, 0, UPPER)],
        "6": [match_rung("interweave-ladder-6v5-seed80.txt")],
        "depth 5": [match_rung("interweave-ladder-depth5-vs-6-seed81.txt")],
        "7": [(5, 1, 0, DOCS + ", replay, 500 ms"), (12, 8, 0, UPPER)],
        "8": [match_rung("interweave-ladder-8v7-3s-2s-seed82.txt")],
    },
    "rebelfury": {
        # remade (issue 48) from matches with the levels as they are (records named by settings:
        # level=1 with noise and lapses for levels 1-4, level=5,depth=1 for level 4, level=7,depth=3
        # for depth 3, level 8 and 7 with the node budgets of the site's move times)
        "1": [(36, 4, 0, FIRST.format("rebelfury"))],
        "2": [(36, 4, 0, SECOND.format("rebelfury")), match_rung("rebelfury-ladder-2v1-seed108.txt")],
        "3": [match_rung("rebelfury-ladder-3v2-seed111.txt"), match_rung("rebelfury-ladder-3v2-seed116.txt")],
        "4": [match_rung("rebelfury-ladder-4v3-seed89.txt"), match_rung("rebelfury-ladder-4v3-seed117.txt")],
        "5": [match_rung("rebelfury-ladder-5v4-seed112.txt")],
        "6": [match_rung("rebelfury-ladder-6v5-seed113.txt")],
        "7": [match_rung("rebelfury-ladder-7v6-2s-1.5s-seed99.txt")],
        "8": [match_rung("rebelfury-ladder-8v7-3s-2s-seed83.txt")],
    },
}


def rung_elo(wins: int, losses: int, draws: int) -> tuple[float, float, bool]:
    """(Elo difference, its standard error, clamped) of one rung, from the higher level's view."""
    n = wins + losses + draws
    mean = (wins + 0.5 * draws) / n
    clamped = mean in (0.0, 1.0)
    mean = min(max(mean, 0.5 / n), 1 - 0.5 / n)
    var = (wins * (1 - mean) ** 2 + losses * mean**2 + draws * (0.5 - mean) ** 2) / max(1, n - 1)
    var = max(var, mean * (1 - mean) / 2)
    slope = 400 / math.log(10) / (mean * (1 - mean))
    return -400 * math.log10(1 / mean - 1), slope * math.sqrt(var / n), clamped


LEVEL_STEPS = tuple(str(k) for k in range(1, 9))
"""The steps of a chain that are levels 1-8, by name (a chain's other steps are configurations
between two levels, measured on the way: Interweave's "depth 3" and "depth 5", its levels 4 and
6 before issue 48 evened the steps)."""


def chain(rungs: dict[str, list[Rung]]) -> dict[str, tuple[float, float, bool, int]]:
    """(rating, 95% half-interval, a rung clamped, games) of each step of a chain, in order."""
    out = {}
    rating, var = float(ANCHOR_ELO), 0.0
    for step, matches in rungs.items():
        w = sum(r[0] for r in matches)
        l_ = sum(r[1] for r in matches)
        d = sum(r[2] for r in matches)
        diff, se, clamped = rung_elo(w, l_, d)
        rating += diff
        var += se * se
        out[step] = (rating, 1.96 * math.sqrt(var), clamped, w + l_ + d)
    return out


def scale(game: str) -> list[tuple[float, float, bool, int]]:
    """(rating, 95% half-interval, a rung clamped, games of its rung) of levels 1-8 of ``game``."""
    steps = chain(RUNGS[game])
    return [steps[step] for step in LEVEL_STEPS]


OUTSIDE: dict[str, list[tuple[int, int, int, int]]] = {
    "fugue": [(1, 0, 20, 0), (2, 9, 11, 0), (3, 14, 6, 0)],
    "interweave": [(0, 11, 9, 0), (1, 20, 0, 0)],
}
"""The vchess bot (``bench/vchess_bridge.mjs``) against our players: (our level, 0 for the
greedy anchor; wins, losses, draws of ours), from the ``vchess-*.txt`` records."""


def outside_rating(game: str) -> tuple[float, float] | None:
    """(rating, 95% half-interval) of the vchess bot in ``game`` on this scale, or None.

    Each match puts the bot at our player's rating minus the match's difference; the estimates
    are combined by their variances (the rung's and the player's own along the chain).
    """
    matches = OUTSIDE.get(game)
    if not matches:
        return None
    ladder = scale(game)
    weight_sum = weighted = 0.0
    for level, wins, losses, draws in matches:
        rating, var = (
            (float(ANCHOR_ELO), 0.0)
            if level == 0
            else (ladder[level - 1][0], (ladder[level - 1][1] / 1.96) ** 2)
        )
        diff, se, _clamped = rung_elo(wins, losses, draws)
        var += se * se
        weighted += (rating - diff) / var
        weight_sum += 1 / var
    return weighted / weight_sum, 1.96 * math.sqrt(1 / weight_sum)


def main() -> int:
    print(f"| game | {' | '.join(f'level {k}' for k in range(1, 9))} |")
    print("|---|" + "---|" * 8)
    table: dict[str, dict[int, int]] = {}
    for game in RUNGS:
        cells = []
        table[game] = {}
        for k, (rating, half, clamped, games) in enumerate(scale(game), start=1):
            table[game][k] = round(rating / 10) * 10
            cells.append(f"{table[game][k]} ± {half:.0f}{'*' if clamped else ''} ({games})")
        print(f"| {game} | " + " | ".join(cells) + " |")
    print()
    for game in RUNGS:
        ratings = [row[0] for row in scale(game)]
        steps = [round(b - a) for a, b in zip([float(ANCHOR_ELO), *ratings], ratings, strict=False)]
        between = {k: round(v[0]) for k, v in chain(RUNGS[game]).items() if k not in LEVEL_STEPS}
        extra = f"; between the levels {between}" if between else ""
        print(f"{game}: steps from the anchor up {steps}{extra}")
    print()
    for game in OUTSIDE:
        found = outside_rating(game)
        if found is not None:
            print(f"vchess bot, {game}: {found[0]:.0f} ± {found[1]:.0f}")
    print()
    print("ELO =", table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
