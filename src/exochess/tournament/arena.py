"""Arena tournaments: pairing the waiting players and scoring their games (lichess-like).

An arena pairs a player again as soon as their game ends.  Whoever is waiting at a pairing
wave is paired by :func:`pair_arena`; each finished game is scored by :func:`arena_points`.
Both are pure: the caller keeps the players' state (score, last opponent, colours, streak).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

import networkx as nx

from .common import Colour, colour_balance


class ArenaResult(Enum):
    """A finished arena game from one player's side."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


@dataclass(frozen=True)
class ArenaPlayer:
    """A player waiting to be paired in an arena.

    ``recent_opponents`` is newest first: its first entry is the last opponent, the one an
    immediate rematch would meet again.  ``colours`` is the colours played, oldest first.
    """

    id: int
    score: int
    rating: int
    recent_opponents: tuple[int, ...] = ()
    colours: tuple[Colour, ...] = ()

    @property
    def last_opponent(self) -> int | None:
        """The opponent of the player's last game, if any."""
        return self.recent_opponents[0] if self.recent_opponents else None


@dataclass(frozen=True)
class ArenaPairing:
    """One arena game to start: ``white`` and ``black`` are player ids."""

    white: int
    black: int


# The edge costs, as integers so the matching is exact.  A rematch costs more than every other
# cost of a whole wave together, so a pairing without rematches always wins when one exists;
# then a point of score difference counts as much as SCORE_WEIGHT rating points.
SCORE_WEIGHT = 200
"""Rating points worth one arena point of score difference when choosing opponents."""
_OLDER_REMATCH = 10_000
"""The cost of meeting an opponent of the last few games (not the last one) again."""


def _cost(a: ArenaPlayer, b: ArenaPlayer) -> int:
    cost = SCORE_WEIGHT * abs(a.score - b.score) + abs(a.rating - b.rating)
    if b.id in a.recent_opponents[1:] or a.id in b.recent_opponents[1:]:
        cost += _OLDER_REMATCH
    return cost


def _is_rematch(a: ArenaPlayer, b: ArenaPlayer) -> bool:
    return a.last_opponent == b.id or b.last_opponent == a.id


def _colours(a: ArenaPlayer, b: ArenaPlayer) -> ArenaPairing:
    """White to the player who had fewer whites, then to whoever had black last."""

    def key(p: ArenaPlayer) -> tuple[int, int, int, int]:
        last = 1 if p.colours and p.colours[-1] is Colour.WHITE else 0
        return (colour_balance(p.colours), last, -p.rating, p.id)

    first, second = sorted((a, b), key=key)
    return ArenaPairing(white=first.id, black=second.id)


WINDOW = 40
"""Players matched together at most, in score order: the matching is cubic in the wave's size
(200 waiting players in one matching take seconds; windows of 40 take milliseconds each)."""


def pair_arena(waiting: Sequence[ArenaPlayer], *, window: int = WINDOW) -> list[ArenaPairing]:
    """Pair the waiting players; with an odd count the one left out waits for the next wave.

    The players, ordered by score then rating, are cut into windows of about
    :data:`WINDOW` neighbours; each window's pairing is a minimum-cost maximum matching
    (Edmonds' blossom algorithm, networkx) over all its possible pairs: an immediate rematch
    (either player's last opponent) costs more than all other costs together, so it is chosen
    only when no pairing of as many players avoids it; among the rest, close scores come first,
    then close ratings.  Should a window be left with a rematch, the whole wave is matched at
    once instead, so a rematch is never played while the wave held an alternative.  With an
    odd count the matching leaves out whoever costs the most to pair.  Deterministic: the same
    players give the same games, whatever their order.
    """
    players = sorted(waiting, key=lambda p: (-p.score, -p.rating, p.id))
    if len({p.id for p in players}) != len(players):
        raise ValueError("a player is waiting twice in the same arena")
    if window < 2 or window % 2:
        raise ValueError("an arena pairing window holds an even number of players")
    windows = [players[i : i + window] for i in range(0, len(players), window)]
    if len(windows) > 1 and len(windows[-1]) < window // 2:
        windows[-2:] = [windows[-2] + windows[-1]]
    games = [game for window in windows for game in _match(window)]
    if len(windows) > 1 and any(
        _is_rematch(_by_id(players, g.white), _by_id(players, g.black)) for g in games
    ):
        games = _match(players)
    return games


def _by_id(players: Sequence[ArenaPlayer], pid: int) -> ArenaPlayer:
    return next(p for p in players if p.id == pid)


def _match(players: Sequence[ArenaPlayer]) -> list[ArenaPairing]:
    """The minimum-cost maximum matching of ``players`` (see :func:`pair_arena`)."""
    if len(players) < 2:
        return []
    costs = {(i, j): _cost(a, b) for i, a in enumerate(players) for j, b in enumerate(players) if i < j}
    # A rematch costs more than any matching's other costs together; every weight stays positive.
    rematch = (max(costs.values()) + 1) * len(players)
    ceiling = rematch * len(players) + 1
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(range(len(players)))
    for (i, j), cost in costs.items():
        penalty = rematch if _is_rematch(players[i], players[j]) else 0
        graph.add_edge(i, j, weight=ceiling - cost - penalty)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    pairs = sorted((min(i, j), max(i, j)) for i, j in matching)
    return [_colours(players[i], players[j]) for i, j in pairs]


def arena_points(result: ArenaResult, *, on_fire: bool, berserked: bool) -> int:
    """The arena points of one game for one player.

    A win is worth 2, a draw 1, a loss 0; while the player is on fire (see
    :func:`is_on_fire`) these are doubled.  A berserked win (the player halved their own clock)
    adds one bonus point, not doubled.
    """
    base = {ArenaResult.WIN: 2, ArenaResult.DRAW: 1, ArenaResult.LOSS: 0}[result]
    bonus = 1 if berserked and result is ArenaResult.WIN else 0
    return base * (2 if on_fire else 1) + bonus


def is_on_fire(previous: Sequence[ArenaResult]) -> bool:
    """Whether the next game is scored double: the player's last two games (oldest first
    in ``previous``) were wins, and no non-win came since (a streak ends at a draw or loss)."""
    return len(previous) >= 2 and previous[-1] is ArenaResult.WIN and previous[-2] is ArenaResult.WIN


def arena_score(games: Sequence[tuple[ArenaResult, bool]]) -> int:
    """The arena score of a player's games, oldest first, each ``(result, berserked)``."""
    total = 0
    for index, (result, berserked) in enumerate(games):
        previous = [r for r, _ in games[:index]]
        total += arena_points(result, on_fire=is_on_fire(previous), berserked=berserked)
    return total
