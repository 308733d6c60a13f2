"""Each level's rating (engine/levels.py ELO): one scale per game, level 1 at the bottom."""

from __future__ import annotations

from exochess.engine.levels import ELO, LEVELS, level_elo
from exochess.variants import GAMES, all_variants
from tests.helpers import bench_script


def test_every_game_has_a_rating_for_every_level_and_they_rise() -> None:
    for variant in all_variants():
        if variant.name not in ELO:
            continue  # a game without a ladder run (the toy game of the tests)
        found = [level_elo(n, variant) for n in sorted(LEVELS)]
        ratings = [r for r in found if r is not None]
        assert len(ratings) == len(found), variant.name
        assert ratings == sorted(ratings) and len(set(ratings)) == len(ratings), (variant.name, ratings)
    assert {game.name for game in GAMES} <= set(ELO)  # every shipped game has its ladder


def test_an_unmeasured_game_or_level_has_no_rating() -> None:
    assert level_elo(9, "fugue") is None
    assert level_elo(3, "no such game") is None


def test_the_ratings_are_what_their_recipe_computes() -> None:
    # levels.ELO is data; bench/level_scale.py is how it was computed from the ladder's rungs
    scale = bench_script("level_scale")
    for game in scale.RUNGS:
        ratings = [row[0] for row in scale.scale(game)]
        computed = {k: round(rating / 10) * 10 for k, rating in enumerate(ratings, start=1)}
        assert computed == ELO[game], game


def test_the_greedy_anchor_takes_the_most_material_or_the_win() -> None:
    import random

    from exochess import Board

    greedy = bench_script("greedy")
    # White's Queen on d1 can take the Black King on d8 (a win) or nothing else
    board = Board("fugue", fen="3k4/8/8/8/8/8/8/3QK3 w")
    assert greedy.greedy_move(board, random.Random(1)) == "d1xd8"
