"""Playing levels 1-8: from a beginner who blunders plausibly to full strength.

A level fixes a nominal depth, random noise added to the root moves' scores,
whether captures are followed to quiet positions, and a share of the move time.

| level | depth | noise (cp) | quiescence | pruning | time share |
|---|---|---|---|---|---|
| 1 | 1 | 300 | no  | no  | 1/8 |
| 2 | 1 | 150 | yes | no  | 1/8 |
| 3 | 1 | 40  | yes | no  | 1/8 |
| 4 | 2 | 60  | yes | no  | 1/4 |
| 5 | 2 | 0   | yes | yes | 1/4 |
| 6 | 3 | 0   | yes | yes | 1/2 |
| 7 | 4 | 0   | yes | yes | 1/2 |
| 8 | 99| 0   | yes | yes | 1   |

Level 1 sees only the material its own move wins (it never notices the
reply), with noise as large as a minor piece: it hangs pieces the way a new
player does but still grabs a King left en prise.  Each step adds one thing a
stronger player has: following captures to the end (2), less noise (3),
seeing the reply (4), no noise (5), one more ply (6, 7), and finally
iterative deepening on the whole time budget (8).
"""

from __future__ import annotations

from dataclasses import dataclass

from exochess.engine.search import SearchOptions

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

    def options(self) -> SearchOptions:
        """The search options of this level."""
        return SearchOptions(
            max_depth=self.depth, noise_cp=self.noise_cp, quiescence=self.quiescence, pruning=self.pruning
        )

    def movetime_ms(self, movetime_ms: int | None) -> int:
        """The time this level spends when the interface allows ``movetime_ms`` (None = default)."""
        if movetime_ms is None:
            return DEFAULT_MOVETIME_MS[self.number]
        return max(1, int(movetime_ms * self.time_share))


LEVELS: dict[int, Level] = {
    1: Level(1, 1, 300, False, False, 0.125),
    2: Level(2, 1, 150, True, False, 0.125),
    3: Level(3, 1, 40, True, False, 0.125),
    4: Level(4, 2, 60, True, False, 0.25),
    5: Level(5, 2, 0, True, True, 0.25),
    6: Level(6, 3, 0, True, True, 0.5),
    7: Level(7, 4, 0, True, True, 0.5),
    8: Level(8, 99, 0, True, True, 1.0),
}


def level(number: int) -> Level:
    """The level ``number`` (1-8); raises ValueError otherwise."""
    if isinstance(number, bool) or not isinstance(number, int) or number not in LEVELS:
        raise ValueError(f"level must be an integer from 1 to 8, not {number!r}")
    return LEVELS[number]
