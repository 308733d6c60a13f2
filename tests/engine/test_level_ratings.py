"""Each level's rating (engine/levels.py ELO): one scale per game, level 1 at the bottom."""

from __future__ import annotations

from exochess.engine.levels import ELO, LEVELS, level_elo
from exochess.variants import all_variants


def test_every_game_has_a_rating_for_every_level_and_they_rise() -> None:
    for variant in all_variants():
        if variant.name not in ELO:
            continue  # a game without a ladder run (the toy game of the tests)
        found = [level_elo(n, variant) for n in sorted(LEVELS)]
        ratings = [r for r in found if r is not None]
        assert len(ratings) == len(found), variant.name
        assert ratings == sorted(ratings) and len(set(ratings)) == len(ratings), (variant.name, ratings)
    assert {"fugue", "interweave", "rebelfury"} <= set(ELO)


def test_an_unmeasured_game_or_level_has_no_rating() -> None:
    assert level_elo(9, "fugue") is None
    assert level_elo(3, "no such game") is None
