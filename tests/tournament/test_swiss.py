"""Swiss pairing by the Dutch system (exochess.tournament.swiss), checked by hand."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exochess.tournament.swiss import (
    Game,
    Pairing,
    PairingImpossible,
    RoundPairing,
    SwissPlayer,
    SwissResult,
    SwissRound,
    pair_round,
    scores,
)

W, B, D = SwissResult.WHITE_WINS, SwissResult.BLACK_WINS, SwissResult.DRAW


def field(n: int) -> list[SwissPlayer]:
    """n players, id = starting rank (ratings strictly decreasing)."""
    return [SwissPlayer(i, 2400 - 10 * i) for i in range(1, n + 1)]


def games(pairing: RoundPairing) -> list[tuple[int, int]]:
    return [(p.white, p.black) for p in pairing.pairings]


def test_round_one_top_half_meets_bottom_half_colours_alternating() -> None:
    """Dutch round 1 of 8: S1 = 1-4 meets S2 = 5-8 in order; the top seed has white and the
    colours alternate down the boards: 1-5, 6-2, 3-7, 8-4."""
    assert games(pair_round(field(8), [], 5)) == [(1, 5), (6, 2), (3, 7), (8, 4)]


def test_round_two_transposes_to_meet_colour_preferences() -> None:
    """The favourites win round 1 (1-5, 6-2, 3-7, 8-4).

    Score group 1 is {1, 2, 3, 4}: S1 = {1, 2}, S2 = {3, 4}.  The plain pairing 1-3, 2-4
    would meet two players who both want black (1 and 3 had white) and two who both want
    white (2 and 4 had black).  The first transposition of S2, 1-4 and 2-3, gives everyone
    their colour (FIDE C.04.3: colour preferences before S2's order), so 4-1 and 2-3.  Group
    0 likewise: 5 (black) - 8 (white) and 7 (black) - 6 (white), so 5-8 and 7-6.
    """
    r1 = SwissRound((Game(1, 5, W), Game(6, 2, B), Game(3, 7, W), Game(8, 4, B)))
    assert games(pair_round(field(8), [r1], 5)) == [(4, 1), (2, 3), (5, 8), (7, 6)]


def test_odd_count_gives_the_lowest_the_bye_and_never_twice() -> None:
    """Five players: S1 = {1, 2}, S2 = {3, 4}, and the lowest ranked of the lowest group, 5,
    gets the bye (1 point): 1-3, 4-2, bye 5.

    Round 2, after 1 and 2 win: score 1 holds 1, 2 and 5, score 0 holds 3 and 4.  The bye
    goes to the lowest of score 0, 4 (5 had one already).  One of score 1 must float down to
    meet 3.  A pairing-allocated bye counts as a downfloat, and the Dutch rules avoid floating
    the same player down twice running, so 5 stays; 1 has met 3, so 2 floats: 2-3 (2 had
    black, so white now) and 5-1 (1 had white, 5 has no colour yet).
    """
    players = field(5)
    first = pair_round(players, [], 3)
    assert games(first) == [(1, 3), (4, 2)] and first.bye == 5
    r1 = SwissRound((Game(1, 3, W), Game(4, 2, B)), bye=5)
    assert scores(players, [r1]) == {1: 1.0, 2: 1.0, 3: 0.0, 4: 0.0, 5: 1.0}
    second = pair_round(players, [r1], 3)
    assert games(second) == [(5, 1), (2, 3)] and second.bye == 4


def test_no_repeat_forces_a_float_down_two_groups() -> None:
    """Four players, three rounds.

    R1: 1-3 (1 wins), 4-2 (2 wins).  R2: 2-1 and 3-4; 1 and 3 win.  Scores: 1 has 2, 2 and 3
    have 1, 4 has 0.  In R3 the leader 1 floats down, but has met both 2 and 3: the only
    opponent left is 4, two score groups down; 2 and 3 then meet.  Colours: 1 had W, B (wants
    white) and 4 had B, W (wants black), so 1-4; 2 (B, W) and 3 (B, W) both want black, and
    the higher ranked (2) gets it: 3-2.
    """
    players = field(4)
    r1 = SwissRound((Game(1, 3, W), Game(4, 2, B)))
    assert games(pair_round(players, [r1], 3)) == [(2, 1), (3, 4)]
    r2 = SwissRound((Game(2, 1, B), Game(3, 4, W)))
    third = pair_round(players, [r1, r2], 3)
    assert games(third) == [(1, 4), (3, 2)]


def test_late_joiner_and_withdrawal() -> None:
    """Player 5 joins in round 2 with half a point for the missed round; player 4 withdraws
    after round 1.  Round 2 pairs 1, 2, 3 and 5: 4 is never paired again, 5 is paired."""
    players = [
        *field(3),
        SwissPlayer(4, 2360, withdrawn_after=1),
        SwissPlayer(5, 2000, joined_round=2, start_score=0.5),
    ]
    first = pair_round(players, [], 3)
    assert sorted(first.players()) == [1, 2, 3, 4] and first.bye is None
    r1 = SwissRound(tuple(Game(p.white, p.black, D) for p in first.pairings))
    assert scores(players, [r1])[5] == 0.5
    second = pair_round(players, [r1], 3)
    assert sorted(second.players()) == [1, 2, 3, 5]


def test_impossible_rounds_and_bad_records_are_refused() -> None:
    players = field(2)
    r1 = SwissRound((Game(1, 2, D),))
    with pytest.raises(PairingImpossible):
        pair_round(players, [r1], 2)
    with pytest.raises(ValueError, match="2 rounds"):
        pair_round(players, [r1, r1], 2)
    with pytest.raises(ValueError, match="unknown player 9"):
        pair_round(players, [SwissRound((Game(1, 9, D),))], 3)
    with pytest.raises(ValueError, match="twice"):
        pair_round([*players, players[0]], [], 3)
    assert pair_round([], [], 1) == RoundPairing(pairings=())
    assert pair_round(field(1), [], 1) == RoundPairing(pairings=(), bye=1)


def legal_round_exists(active: list[int], met: set[frozenset[int]], had_bye: set[int]) -> bool:
    """Brute force: some pairing of ``active`` with no repeat game and no second bye."""
    if len(active) % 2:
        return any(
            legal_round_exists([p for p in active if p != bye], met, had_bye)
            for bye in active
            if bye not in had_bye
        )
    if not active:
        return True
    first, rest = active[0], active[1:]
    return any(
        legal_round_exists([p for p in rest if p != other], met, had_bye)
        for other in rest
        if frozenset((first, other)) not in met
    )


@st.composite
def tournaments(draw: st.DrawFn) -> tuple[list[SwissPlayer], int, list[list[SwissResult]]]:
    n = draw(st.integers(min_value=2, max_value=10))
    rounds = draw(st.integers(min_value=1, max_value=5))
    ratings = draw(st.lists(st.integers(1000, 2800), min_size=n, max_size=n))
    players = []
    for i, rating in enumerate(ratings, start=1):
        joined = draw(st.sampled_from([1, 1, 1, 2]))
        withdrawn = draw(st.sampled_from([None, None, None, 1, 2]))
        players.append(SwissPlayer(i, rating, joined_round=joined, withdrawn_after=withdrawn))
    results = [
        draw(st.lists(st.sampled_from(list(SwissResult)), min_size=n, max_size=n)) for _ in range(rounds)
    ]
    return players, rounds, results


@settings(max_examples=60, deadline=None)
@given(tournaments())
def test_every_round_is_legal(case: tuple[list[SwissPlayer], int, list[list[SwissResult]]]) -> None:
    """Every round: each active player once, no repeat game when one can be avoided, byes to
    distinct players; when the engine finds no pairing, none exists."""
    players, total, results = case
    played: list[SwissRound] = []
    met: set[frozenset[int]] = set()
    had_bye: set[int] = set()
    for number in range(1, total + 1):
        active = sorted(p.id for p in players if p.active_in(number))
        try:
            pairing = pair_round(players, played, total)
        except PairingImpossible:
            assert not legal_round_exists(active, met, had_bye)
            return
        ids = pairing.players()
        assert sorted(ids) == active, "each active player exactly once"
        assert all(frozenset((p.white, p.black)) not in met for p in pairing.pairings)
        assert pairing.bye is None or pairing.bye not in had_bye
        assert (pairing.bye is not None) == (len(active) % 2 == 1)
        met |= {frozenset((p.white, p.black)) for p in pairing.pairings}
        if pairing.bye is not None:
            had_bye.add(pairing.bye)
        played.append(
            SwissRound(
                tuple(
                    Game(p.white, p.black, r)
                    for p, r in zip(pairing.pairings, results[number - 1], strict=False)
                ),
                pairing.bye,
            )
        )


def test_colours_never_three_in_a_row_and_balanced() -> None:
    """A 10-player, 5-round event with draws everywhere (one big score group, the hardest
    case for colours): nobody gets the same colour three times running, and nobody's
    whites and blacks differ by more than 2."""
    players = field(10)
    played: list[SwissRound] = []
    for _ in range(5):
        pairing = pair_round(players, played, 5)
        played.append(SwissRound(tuple(Game(p.white, p.black, D) for p in pairing.pairings)))
    for pid in range(1, 11):
        colours = [
            "W" if g.white == pid else "B" for r in played for g in r.games if pid in (g.white, g.black)
        ]
        run = "".join(colours)
        assert "WWW" not in run and "BBB" not in run, (pid, run)
        assert abs(run.count("W") - run.count("B")) <= 2, (pid, run)


def test_pairing_records_are_plain_values() -> None:
    assert Pairing(1, 2) == Pairing(white=1, black=2)
    assert RoundPairing((Pairing(1, 2),), bye=3).players() == [1, 2, 3]
