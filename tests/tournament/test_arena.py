"""Arena pairing and points (exochess.tournament.arena)."""

from __future__ import annotations

from itertools import permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exochess.tournament.arena import (
    WINDOW,
    ArenaPairing,
    ArenaPlayer,
    ArenaResult,
    arena_points,
    arena_score,
    is_on_fire,
    pair_arena,
)
from exochess.tournament.common import Colour

W, D, L = ArenaResult.WIN, ArenaResult.DRAW, ArenaResult.LOSS


def pairs(games: list[ArenaPairing]) -> set[frozenset[int]]:
    return {frozenset((g.white, g.black)) for g in games}


def test_waiting_players_are_paired_by_score_then_rating() -> None:
    waiting = [
        ArenaPlayer(1, score=10, rating=1500),
        ArenaPlayer(2, score=0, rating=1510),
        ArenaPlayer(3, score=9, rating=1900),
        ArenaPlayer(4, score=1, rating=1400),
    ]
    # The two leaders together and the two at the bottom together, though rating alone
    # would pair 1 with 2.
    assert pairs(pair_arena(waiting)) == {frozenset((1, 3)), frozenset((2, 4))}


def test_equal_scores_pair_by_closest_rating() -> None:
    waiting = [ArenaPlayer(i, score=4, rating=r) for i, r in ((1, 1500), (2, 2000), (3, 1520), (4, 1990))]
    assert pairs(pair_arena(waiting)) == {frozenset((1, 3)), frozenset((2, 4))}


def test_no_immediate_rematch_when_someone_else_waits() -> None:
    # 1 and 2 just played each other and are the closest in score and rating.
    waiting = [
        ArenaPlayer(1, score=6, rating=1600, recent_opponents=(2,)),
        ArenaPlayer(2, score=6, rating=1600, recent_opponents=(1,)),
        ArenaPlayer(3, score=0, rating=1200),
        ArenaPlayer(4, score=0, rating=1200),
    ]
    assert pairs(pair_arena(waiting)) == {frozenset((1, 3)), frozenset((2, 4))}


def test_the_rematch_is_taken_when_it_is_the_only_game() -> None:
    waiting = [ArenaPlayer(1, 0, 1500, (2,)), ArenaPlayer(2, 0, 1500, (1,))]
    assert pairs(pair_arena(waiting)) == {frozenset((1, 2))}


def test_odd_count_leaves_one_waiting_and_small_waves_pair_nothing() -> None:
    assert pair_arena([]) == [] and pair_arena([ArenaPlayer(1, 0, 1500)]) == []
    games = pair_arena([ArenaPlayer(i, 0, 1500 + i) for i in range(5)])
    assert len(games) == 2


def test_colours_go_to_who_had_fewer_whites() -> None:
    a = ArenaPlayer(1, 0, 1500, colours=(Colour.WHITE, Colour.WHITE, Colour.BLACK))
    b = ArenaPlayer(2, 0, 1500, colours=(Colour.BLACK,))
    (game,) = pair_arena([a, b])
    assert (game.white, game.black) == (2, 1)
    # Equal balance: white to whoever had black last.
    c = ArenaPlayer(3, 0, 1500, colours=(Colour.BLACK, Colour.WHITE))
    d = ArenaPlayer(4, 0, 1500, colours=(Colour.WHITE, Colour.BLACK))
    (game,) = pair_arena([c, d])
    assert (game.white, game.black) == (4, 3)


def test_points_streak_and_berserk() -> None:
    assert arena_points(W, on_fire=False, berserked=False) == 2
    assert arena_points(D, on_fire=False, berserked=False) == 1
    assert arena_points(L, on_fire=False, berserked=True) == 0
    assert arena_points(W, on_fire=True, berserked=False) == 4
    assert arena_points(D, on_fire=True, berserked=False) == 2
    assert arena_points(W, on_fire=True, berserked=True) == 5
    assert arena_points(W, on_fire=False, berserked=True) == 3
    assert not is_on_fire([W]) and is_on_fire([W, W]) and not is_on_fire([W, W, D])
    # W W W D W W W: 2 + 2 + 4 + 2 (draw on fire ends the streak) + 2 + 2 + 4, berserk on the
    # last win: + 1.
    games = [(W, False), (W, False), (W, False), (D, False), (W, False), (W, False), (W, True)]
    assert arena_score(games) == 19
    assert arena_score([(L, True), (W, True), (D, False)]) == 4


def brute_force_rematch_free(players: list[ArenaPlayer]) -> bool:
    """Whether some pairing of as many players as possible has no immediate rematch."""

    def rematch(a: ArenaPlayer, b: ArenaPlayer) -> bool:
        return a.last_opponent == b.id or b.last_opponent == a.id

    n = len(players)
    for order in permutations(players):
        if all(not rematch(order[i], order[i + 1]) for i in range(0, n - 1, 2)):
            return True
    return False


@st.composite
def waves(draw: st.DrawFn) -> list[ArenaPlayer]:
    n = draw(st.integers(min_value=0, max_value=9))
    ids = list(range(1, n + 1))
    return [
        ArenaPlayer(
            i,
            score=draw(st.integers(0, 12)),
            rating=draw(st.integers(800, 2800)),
            recent_opponents=tuple(draw(st.lists(st.sampled_from([*ids, 99]), max_size=3))),
            colours=tuple(draw(st.lists(st.sampled_from(list(Colour)), max_size=4))),
        )
        for i in ids
    ]


@settings(max_examples=150, deadline=None)
@given(waves(), st.sampled_from([2, 4, WINDOW]))
def test_arena_waves_pair_everyone_once_and_avoid_the_rematch(
    waiting: list[ArenaPlayer], window: int
) -> None:
    """Any wave, matched whole or in windows: everyone in at most one game, as many games as
    players allow, and an immediate rematch only when no pairing of the wave avoids it."""
    games = pair_arena(waiting, window=window)
    seated = [p for g in games for p in (g.white, g.black)]
    assert len(seated) == len(set(seated)), "a player is in two games"
    assert len(games) == len(waiting) // 2, "players left waiting while they could play"
    by_id = {p.id: p for p in waiting}
    rematches = [
        g for g in games if by_id[g.white].last_opponent == g.black or by_id[g.black].last_opponent == g.white
    ]
    if rematches:
        assert not brute_force_rematch_free(waiting), f"an avoidable rematch: {rematches}"


def test_large_waves_are_paired_in_windows_by_score() -> None:
    """100 players in windows of 40: everyone paired, each game within one window of the
    score order, so a leader never meets the bottom of the table."""
    waiting = [ArenaPlayer(i, score=100 - i, rating=1500) for i in range(100)]
    games = pair_arena(waiting)
    assert len(games) == 50
    assert all(abs(g.white - g.black) < WINDOW + WINDOW // 2 for g in games)
    assert pair_arena(waiting, window=4) == pair_arena(list(reversed(waiting)), window=4)


def test_bad_windows_and_duplicates_are_refused() -> None:
    with pytest.raises(ValueError, match="even"):
        pair_arena([], window=3)
    with pytest.raises(ValueError, match="twice"):
        pair_arena([ArenaPlayer(1, 0, 1500), ArenaPlayer(1, 0, 1500)])
