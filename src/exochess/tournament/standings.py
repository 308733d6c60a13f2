"""Swiss standings: score, then tie-breaks, in one deterministic order.

Tie-breaks (all over the games actually played; see docs/tournaments.md for the choices):

* Buchholz: the sum of the final scores of the player's opponents;
* Buchholz cut-1: the same without the lowest of those scores;
* Sonneborn-Berger: the final scores of the opponents beaten, plus half of those drawn;
* wins: the games won over the board (a bye is not a win).

A bye or a missed round brings no opponent, so it adds nothing to Buchholz or
Sonneborn-Berger (a simplification of FIDE's "virtual opponent", stated in the docs).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .common import Colour
from .swiss import SwissPlayer, SwissRound, scores


@dataclass(frozen=True)
class Standing:
    """One line of the table; ``rank`` starts at 1 and is unique (ties broken to the end)."""

    rank: int
    player: int
    score: float
    buchholz: float
    buchholz_cut1: float
    sonneborn_berger: float
    wins: int
    withdrawn: bool


def standings(players: Sequence[SwissPlayer], rounds: Sequence[SwissRound]) -> list[Standing]:
    """The table after ``rounds``, best first.

    Order: score, Buchholz cut-1, Buchholz, Sonneborn-Berger, wins, then rating (higher
    first) and id, so two players never share a rank and the order never depends on input
    order.
    """
    final = scores(players, rounds)
    # (opponent, points scored against them) per player
    met: dict[int, list[tuple[int, float]]] = {p.id: [] for p in players}
    for rnd in rounds:
        for game in rnd.games:
            met[game.white].append((game.black, game.result.points(Colour.WHITE)))
            met[game.black].append((game.white, game.result.points(Colour.BLACK)))
    rating = {p.id: p.rating for p in players}
    rows = []
    for p in players:
        opponents = [final[o] for o, _ in met[p.id]]
        buchholz = sum(opponents)
        cut1 = buchholz - min(opponents) if opponents else 0.0
        sb = sum(final[o] * pts for o, pts in met[p.id])
        wins = sum(1 for _, pts in met[p.id] if pts == 1.0)
        rows.append((p.id, final[p.id], buchholz, cut1, sb, wins, p.withdrawn_after is not None))
    rows.sort(key=lambda r: (-r[1], -r[3], -r[2], -r[4], -r[5], -rating[r[0]], r[0]))
    return [
        Standing(
            rank=n,
            player=pid,
            score=score,
            buchholz=bh,
            buchholz_cut1=cut1,
            sonneborn_berger=sb,
            wins=wins,
            withdrawn=withdrawn,
        )
        for n, (pid, score, bh, cut1, sb, wins, withdrawn) in enumerate(rows, start=1)
    ]
