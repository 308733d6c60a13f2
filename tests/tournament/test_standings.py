"""Swiss standings and tie-breaks (exochess.tournament.standings), against a hand recount."""

from __future__ import annotations

from exochess.tournament.standings import standings
from exochess.tournament.swiss import Game, SwissPlayer, SwissResult, SwissRound, pair_round

W, B, D = SwissResult.WHITE_WINS, SwissResult.BLACK_WINS, SwissResult.DRAW


def test_a_three_round_swiss_of_seven() -> None:
    """Seven players (id = starting rank), three rounds paired by the engine, results scripted.

    R1: 1-4 1-0, 5-2 1/2, 3-6 0-1, bye 7   -> 1:1 2:.5 3:0 4:0 5:.5 6:1 7:1
    R2: 7-1 1/2, 6-5 1-0, 2-3 0-1, bye 4   -> 1:1.5 2:.5 3:1 4:1 5:.5 6:2 7:1.5
    R3: 1-6 0-1, 4-7 1-0, 3-5 1/2, bye 2   -> 1:1.5 2:1.5 3:1.5 4:2 5:1 6:3 7:1.5

    Recount by hand (opponents' final scores; byes bring no opponent):
      6: met 3 (1.5), 5 (1), 1 (1.5), beat all: Buchholz 4, cut-1 3, SB 4, 3 wins
      4: met 1 (1.5), 7 (1.5), beat 7: Buchholz 3, cut-1 1.5, SB 1.5, 1 win
      1: met 4 (2), 7 (1.5), 6 (3), beat 4, drew 7: Buchholz 6.5, cut-1 5, SB 2 + .75 = 2.75
      3: met 6 (3), 2 (1.5), 5 (1), beat 2, drew 5: Buchholz 5.5, cut-1 4.5, SB 1.5 + .5 = 2
      7: met 1 (1.5), 4 (2), drew 1: Buchholz 3.5, cut-1 2, SB .75, no win
      2: met 5 (1), 3 (1.5), drew 5: Buchholz 2.5, cut-1 1.5, SB .5, no win
      5: met 2 (1.5), 6 (3), 3 (1.5), drew 2 and 3: Buchholz 6, cut-1 4.5, SB 1.5
    The four on 1.5 are ordered by Buchholz cut-1: 1 (5), 3 (4.5), 7 (2), 2 (1.5).
    """
    players = [SwissPlayer(i, 2000 - 10 * i) for i in range(1, 8)]
    scripted = [[W, D, B], [D, W, B], [B, W, D]]
    expected_pairings = [
        ([(1, 4), (5, 2), (3, 6)], 7),
        ([(7, 1), (6, 5), (2, 3)], 4),
        ([(1, 6), (4, 7), (3, 5)], 2),
    ]
    rounds: list[SwissRound] = []
    for results, (expected, bye) in zip(scripted, expected_pairings, strict=True):
        pairing = pair_round(players, rounds, 3)
        assert [(p.white, p.black) for p in pairing.pairings] == expected and pairing.bye == bye
        rounds.append(
            SwissRound(
                tuple(Game(p.white, p.black, r) for p, r in zip(pairing.pairings, results, strict=True)),
                pairing.bye,
            )
        )
    table = [
        (s.player, s.score, s.buchholz, s.buchholz_cut1, s.sonneborn_berger, s.wins)
        for s in standings(players, rounds)
    ]
    assert table == [
        (6, 3.0, 4.0, 3.0, 4.0, 3),
        (4, 2.0, 3.0, 1.5, 1.5, 1),
        (1, 1.5, 6.5, 5.0, 2.75, 1),
        (3, 1.5, 5.5, 4.5, 2.0, 1),
        (7, 1.5, 3.5, 2.0, 0.75, 0),
        (2, 1.5, 2.5, 1.5, 0.5, 0),
        (5, 1.0, 6.0, 4.5, 1.5, 0),
    ]
    assert [s.rank for s in standings(players, rounds)] == list(range(1, 8))


def test_order_is_deterministic_through_every_tie_break() -> None:
    """Equal on everything: the higher rating first, then the lower id; the input order and a
    withdrawal change nothing but the flag."""
    players = [SwissPlayer(3, 1500), SwissPlayer(1, 1500, withdrawn_after=1), SwissPlayer(2, 1600)]
    table = standings(players, [])
    assert [s.player for s in table] == [2, 1, 3]
    assert [s.player for s in standings(list(reversed(players)), [])] == [2, 1, 3]
    assert [s.withdrawn for s in table] == [False, True, False]
    assert table[0].buchholz == table[0].buchholz_cut1 == table[0].sonneborn_berger == 0.0


def test_sonneborn_berger_separates_equal_buchholz() -> None:
    """1 beat 4 and lost to 3; 2 beat 3 and lost to 4: same score, same opponents (equal
    Buchholz and cut-1), but 1 beat the stronger one.  3 (one more game, against 4) has a
    higher Buchholz cut-1 (1 + 1 + 2 - 1 = 3) than both (2) and ranks above them."""
    players = [SwissPlayer(i, 1500) for i in range(1, 5)]
    r1 = SwissRound((Game(1, 4, W), Game(2, 3, W)))
    r2 = SwissRound((Game(3, 1, W), Game(4, 2, W)))
    r3 = SwissRound((Game(4, 3, W),))
    table = {s.player: s for s in standings(players, [r1, r2, r3])}
    # Final: 1:1 2:1 3:1 4:2.  1 beat 4 (2): SB 2; 2 beat 3 (1): SB 1.
    assert table[1].buchholz == table[2].buchholz == 3.0
    assert (table[1].sonneborn_berger, table[2].sonneborn_berger) == (2.0, 1.0)
    assert [s.player for s in standings(players, [r1, r2, r3])] == [4, 3, 1, 2]
