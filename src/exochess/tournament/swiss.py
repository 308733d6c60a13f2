"""Swiss events: the record of rounds played and the pairing of the next round.

The pairing itself is the FIDE Dutch system (handbook C.04.3) as implemented by the
``caissify-pairings`` library (docs/decisions/0016).  This module owns what the library leaves
to its caller: it keeps the tournament as plain records (players, rounds of games and byes),
derives from them each player's score, colours, floats and byes, hands the library that
snapshot, and checks and converts its answer.  Withdrawn players are simply not paired; late
joiners are paired from the round they join with the score they were given.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from .common import Colour

BYE_POINTS = 1.0
"""What a pairing-allocated bye is worth (FIDE: a win's worth)."""


class SwissResult(Enum):
    """A Swiss game's result."""

    WHITE_WINS = "1-0"
    BLACK_WINS = "0-1"
    DRAW = "1/2-1/2"

    def points(self, colour: Colour) -> float:
        """The points of the player who had ``colour``."""
        if self is SwissResult.DRAW:
            return 0.5
        won = Colour.WHITE if self is SwissResult.WHITE_WINS else Colour.BLACK
        return 1.0 if colour is won else 0.0


@dataclass(frozen=True)
class SwissPlayer:
    """A registered player.

    ``joined_round`` is the first round the player can be paired in (1 for everyone who was
    there at the start); ``start_score`` is the score a late joiner is given for the rounds
    missed (0 by default, or what the organiser chooses, e.g. half a point a round).
    ``withdrawn_after`` is the last round the player took part in before withdrawing.
    """

    id: int
    rating: int
    joined_round: int = 1
    start_score: float = 0.0
    withdrawn_after: int | None = None

    def active_in(self, round_number: int) -> bool:
        """Whether the player is to be paired in ``round_number``."""
        if round_number < self.joined_round:
            return False
        return self.withdrawn_after is None or round_number <= self.withdrawn_after


@dataclass(frozen=True)
class Pairing:
    """A game to play: player ids by colour."""

    white: int
    black: int


@dataclass(frozen=True)
class Game:
    """A game played, with its result."""

    white: int
    black: int
    result: SwissResult


@dataclass(frozen=True)
class SwissRound:
    """A round played: its games and the player given the bye (if the count was odd)."""

    games: tuple[Game, ...] = ()
    bye: int | None = None


@dataclass(frozen=True)
class RoundPairing:
    """The pairing of a round: its games (board order) and its bye."""

    pairings: tuple[Pairing, ...]
    bye: int | None = None

    def players(self) -> list[int]:
        """Every player id of the round, the bye included."""
        ids = [p for pairing in self.pairings for p in (pairing.white, pairing.black)]
        return ids + ([self.bye] if self.bye is not None else [])


class PairingImpossible(Exception):
    """No pairing of the round meets the absolute rules (no repeat game, at most one bye each)."""


@dataclass
class _History:
    """One player's record so far, in the library's terms."""

    score: float
    colours: list[str] = field(default_factory=list)
    floats: list[str] = field(default_factory=list)
    byes: int = 0


def scores(players: Sequence[SwissPlayer], rounds: Sequence[SwissRound]) -> dict[int, float]:
    """Each player's score after ``rounds``: start score, game points and bye points."""
    return {pid: h.score for pid, h in _histories(players, rounds).items()}


def _histories(players: Sequence[SwissPlayer], rounds: Sequence[SwissRound]) -> dict[int, _History]:
    known = {p.id for p in players}
    history = {p.id: _History(score=p.start_score) for p in players}
    for number, rnd in enumerate(rounds, start=1):
        before = {pid: h.score for pid, h in history.items()}
        seen: set[int] = set()
        for game in rnd.games:
            for pid in (game.white, game.black):
                if pid not in known:
                    raise ValueError(f"round {number}: unknown player {pid}")
            w, b = history[game.white], history[game.black]
            w.colours.append(Colour.WHITE.value)
            b.colours.append(Colour.BLACK.value)
            w.score += game.result.points(Colour.WHITE)
            b.score += game.result.points(Colour.BLACK)
            # A float: the player met someone of another score (the library's contract).
            sw, sb = before[game.white], before[game.black]
            w.floats.append("none" if sw == sb else ("down" if sw > sb else "up"))
            b.floats.append("none" if sw == sb else ("down" if sb > sw else "up"))
            seen.update((game.white, game.black))
        if rnd.bye is not None:
            if rnd.bye not in known:
                raise ValueError(f"round {number}: unknown player {rnd.bye}")
            bye = history[rnd.bye]
            bye.score += BYE_POINTS
            bye.byes += 1
            bye.colours.append("none")
            bye.floats.append("down")  # FIDE counts a pairing-allocated bye as a downfloat
            seen.add(rnd.bye)
        for pid, h in history.items():
            if pid not in seen:
                h.colours.append("none")
                h.floats.append("none")
    return history


def pair_round(
    players: Sequence[SwissPlayer], rounds: Sequence[SwissRound], total_rounds: int
) -> RoundPairing:
    """Pair the next round (number ``len(rounds) + 1``) by the Dutch system.

    Players not active in that round (not yet joined, or withdrawn) are left out.  With an odd
    count one player gets the bye, never one who already had one while another can take it.
    Raises :class:`PairingImpossible` when no legal pairing exists (e.g. more rounds than a
    small field allows) and :class:`ValueError` on an inconsistent record.
    """
    # Imported here: the library (and networkx under it) loads only where Swiss events are
    # paired, not with every import of the tournament package.
    from caissify_pairings import generate_pairings

    number = len(rounds) + 1
    if number > total_rounds:
        raise ValueError(f"the event has {total_rounds} rounds; round {number} cannot be paired")
    if len({p.id for p in players}) != len(players):
        raise ValueError("a player is registered twice")
    history = _histories(players, rounds)
    active = [p for p in players if p.active_in(number)]
    if not active:
        return RoundPairing(pairings=())
    if len(active) == 1:
        only = active[0].id
        if history[only].byes:
            raise PairingImpossible("the only active player already had a bye")
        return RoundPairing(pairings=(), bye=only)
    # FIDE's initial order: rating, then (our stand-in for title and name) id.
    ranked = sorted(players, key=lambda p: (-p.rating, p.id))
    start = {p.id: n for n, p in enumerate(ranked, start=1)}
    entries: list[dict[str, Any]] = [
        {
            "id": p.id,
            "name": str(p.id),
            "score": history[p.id].score,
            "rating": p.rating,
            "starting_number": start[p.id],
            "color_hist": list(history[p.id].colours),
            "float_history": list(history[p.id].floats),
            "bye_count": history[p.id].byes,
        }
        for p in active
    ]
    previous = {(g.white, g.black) for r in rounds for g in r.games}
    with warnings.catch_warnings():
        # Round 2+ with no float yet (everyone equal so far) is legitimate, not the caller's bug
        # the library warns about.
        warnings.simplefilter("ignore")
        try:
            raw = generate_pairings("dutch", entries, previous, number, total_rounds)
        except Exception as error:  # the library signals "no pairing" by its own exceptions
            raise PairingImpossible(f"round {number}: {error}") from error
    return _checked(raw, {p.id for p in active}, previous, history)


def _checked(
    raw: Sequence[dict[str, Any]],
    active: set[int],
    previous: set[tuple[int, int]],
    history: dict[int, _History],
) -> RoundPairing:
    """The library's answer as our records, after checking the absolute rules ourselves."""
    pairings: list[tuple[int, Pairing]] = []
    byes: list[int] = []
    for entry in raw:
        white, black = entry["white_id"], entry.get("black_id")
        if black is None or entry.get("bye"):
            byes.append(int(white))
        else:
            pairings.append((int(entry.get("table", 0)), Pairing(white=int(white), black=int(black))))
    pairings.sort(key=lambda t: t[0])
    result = RoundPairing(pairings=tuple(p for _, p in pairings), bye=byes[0] if byes else None)
    ids = result.players()
    if len(byes) > 1 or len(ids) != len(set(ids)) or set(ids) != active:
        raise PairingImpossible(f"the pairing engine returned an inconsistent round: {raw!r}")
    met = {frozenset(pair) for pair in previous}
    if any(frozenset((p.white, p.black)) in met for p in result.pairings):
        raise PairingImpossible("no pairing without a repeat game exists")
    if result.bye is not None and history[result.bye].byes:
        raise PairingImpossible("every player who could take the bye already had one")
    return result
