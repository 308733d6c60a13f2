"""Playing levels 1-8: from a beginner who blunders plausibly to full strength.

A level fixes a nominal depth, random noise added to the root moves' scores,
whether captures are followed to quiet positions, a share of lapses (moves
searched one ply deep without following captures), whether the search prunes,
and a share of the move time.  Each game has its own table, because what makes
a player weaker is not the same in the three games (measured with
``bench/ladder.py``; the matches are in ``docs/benchmarks.md``):

* in **Fugue** the root noise is a real handicap, so the lower levels mix noise,
  lapses and depth (the default table, also used by a game without its own);
* in **Interweave** it is not (a level with noise scored about 50% against the
  same depth without it), so the levels differ by depth and lapses;
* in **Rebel Fury** noise only tells at large sizes, and a ply is worth so much
  that the first four levels all look one ply deep (800 cp of noise with 40%
  and 7% of lapses, then 40 cp with 3% and none), level 5 searches three plies
  with 3% of lapses and 6-8 are the default.

Default table (Fugue):

| level | depth | noise (cp) | lapses | quiescence | pruning | time share |
|---|---|---|---|---|---|---|
| 1 | 1 | 150 | 70% | yes | no  | 1/8 |
| 2 | 1 | 150 | 15% | yes | no  | 1/8 |
| 3 | 1 | 40  | 10% | yes | no  | 1/8 |
| 4 | 2 | 120 | 0   | yes | no  | 1/4 |
| 5 | 2 | 0   | 0   | yes | yes | 1/4 |
| 6 | 3 | 0   | 0   | yes | yes | 1/2 |
| 7 | 4 | 0   | 0   | yes | yes | 1/2 |
| 8 | 99| 0   | 0   | yes | yes | 1   |

Interweave's and Rebel Fury's tables are the ``levels`` attribute of their
evaluators (``variants/interweave/evaluation.py``, ``variants/rebelfury/evaluation.py``).

Lapses are how the weak levels blunder like a beginner: in a lapse a level
takes a hanging piece or a King en prise but does not see the reply.  A level
that never followed captures lost to a greedy player almost half the time, but
so much below the same level with quiescence (0-40) that no amount of noise
filled the gap; the share of lapses does, smoothly.  Level 8 always searches
by iterative deepening on the whole time budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from exochess.engine.search import SearchOptions
from exochess.variant import Variant, resolve_variant

DEFAULT_MOVETIME_MS = {1: 200, 2: 300, 3: 500, 4: 700, 5: 1000, 6: 1500, 7: 2000, 8: 3000}
"""Move time when the caller gives none (the depth usually ends the search before)."""


@dataclass(frozen=True, slots=True)
class Level:
    """One playing level."""

    number: int
    depth: int
    noise_cp: int
    quiescence: bool
    pruning: bool
    time_share: float
    lapses: float = 0.0
    """Share of moves played as a lapse (depth 1, no quiescence): see :class:`SearchOptions`."""

    def options(self) -> SearchOptions:
        """The search options of this level."""
        return SearchOptions(
            max_depth=self.depth,
            noise_cp=self.noise_cp,
            quiescence=self.quiescence,
            pruning=self.pruning,
            lapses=self.lapses,
        )

    def movetime_ms(self, movetime_ms: int | None) -> int:
        """The time this level spends when the interface allows ``movetime_ms`` (None = default)."""
        if movetime_ms is None:
            return DEFAULT_MOVETIME_MS[self.number]
        return max(1, int(movetime_ms * self.time_share))


LEVELS: dict[int, Level] = {
    1: Level(1, 1, 150, True, False, 0.125, lapses=0.7),
    2: Level(2, 1, 150, True, False, 0.125, lapses=0.15),
    3: Level(3, 1, 40, True, False, 0.125, lapses=0.1),
    4: Level(4, 2, 120, True, False, 0.25),
    5: Level(5, 2, 0, True, True, 0.25),
    6: Level(6, 3, 0, True, True, 0.5),
    7: Level(7, 4, 0, True, True, 0.5),
    8: Level(8, 99, 0, True, True, 1.0),
}
"""The default table (Fugue's, and any game's without a table of its own)."""

ELO: dict[str, dict[int, int]] = {
    "fugue": {1: 940, 2: 1450, 3: 1790, 4: 2260, 5: 2590, 6: 3000, 7: 3310, 8: 3900},
    "interweave": {1: 690, 2: 960, 3: 1130, 4: 1430, 5: 1670, 6: 1920, 7: 2080, 8: 2270},
    "rebelfury": {1: 880, 2: 1230, 3: 1470, 4: 1710, 5: 1920, 6: 2110, 7: 2460, 8: 2760},
}
"""Each level's rating, one Elo scale per game (not comparable across games), rounded to 10.

The recipe is ``bench/level_scale.py``, which prints this table: a random-but-greedy player
(``bench/greedy.py``) is fixed at 500, level 1 is rated by its matches against it, and each
level k by its matches against level k-1 (the records of 29 Nov 2026 in
``bench/data/ladder/``: 40 games a rung for levels 1-4, played with the levels as they are,
lapses included; for levels 5-8 pooled with the ladder matches of ``docs/benchmarks.md`` and
20 more games of Fugue's and Interweave's rungs 5-7).  The 95% intervals grow along the chain,
from about ±130-210 at level 1 to ±410-600 at level 8 (``docs/benchmarks.md``, "Levels: the
ladder").
Interweave's and Rebel Fury's levels were remade for even steps and rated with the match
records of ``bench/data/matches/interweave-ladder-*`` and ``rebelfury-ladder-*`` (Rebel Fury
100-120 games a rung for levels 2-4, 60 for 5-6, 30 and 20 for 7 and 8), their levels 8 and 7 at
the node budgets of the site's 3 s and 2 s at the game's compiled speed, as Fugue's level 8 is
(30 games, ``fugue-ladder-8v7-*``; at 0.5 s a move its step had measured 241, not 585).
"""


def level_elo(number: int, variant: Variant | str) -> int | None:
    """The rating of level ``number`` in ``variant`` (None for a game or level not measured)."""
    name = variant if isinstance(variant, str) else variant.name
    return ELO.get(name, {}).get(number)


def level(number: int, variant: Variant | str | None = None) -> Level:
    """The level ``number`` (1-8) of the game ``variant`` (None: the default table).

    A game's own table is the ``levels`` attribute of its evaluator.

    Raises ValueError for any other number.

    >>> level(3, "interweave").depth
    2
    >>> level(3).depth
    1
    """
    if isinstance(number, bool) or not isinstance(number, int) or number not in LEVELS:
        raise ValueError(f"level must be an integer from 1 to 8, not {number!r}")
    if variant is None:
        return LEVELS[number]
    from exochess.engine.evaluate import evaluator_class

    return (evaluator_class(resolve_variant(variant)).levels or LEVELS)[number]
