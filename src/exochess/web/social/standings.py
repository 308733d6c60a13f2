"""A tournament's standings and pairing inputs, recounted from its stored games.

Pure functions: the rows of :mod:`exochess.web.storage.tournaments` in, the library's records
(:mod:`exochess.tournament`) and the JSON rows of the standings out.  Nothing is kept as a
running total, so every server recounts the same table from the same rows (:mod:`.records`
keeps the lines counted from an event's settled games, whose rows never change).

A game aborted because a player never moved counts as lost by that player (abandonment) and won
by the opponent, in the tournament only (ratings are untouched: the game did not start).

A berserked win earns the arena's bonus point only when the game lasted at least
:data:`BERSERK_MIN_PLIES` plies (lichess's rule: seven moves each), so that a berserk cannot be
cashed in by a quick resignation between friends or an opponent who never shows up.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from exochess.tournament.arena import ArenaPlayer, ArenaResult, arena_points, is_on_fire
from exochess.tournament.common import Colour
from exochess.tournament.standings import standings as swiss_standings
from exochess.tournament.swiss import Game, SwissPlayer, SwissResult, SwissRound
from exochess.web.accounts.ratings import BOT_TITLE
from exochess.web.domain import GameStatus
from exochess.web.storage.tournaments import EntryRow, PairedGame

RECENT_OPPONENTS = 3
"""Opponents remembered for the arena's rematch rule (newest first)."""
BERSERK_MIN_PLIES = 14
"""The fewest plies a game needs for a berserked win's bonus point (seven moves each)."""


def berserk_bonus(game: PairedGame, user_id: int) -> bool:
    """Whether ``user_id``'s berserk in ``game`` counts (for a win: the arena adds a point)."""
    return game.berserked(user_id) and game.ply >= BERSERK_MIN_PLIES


def absentee(game: PairedGame) -> int | None:
    """The player whose absence aborted ``game`` (the side to move at ply 0 or 1), else None."""
    if game.status != GameStatus.ABORTED or game.ply > 1:
        return None
    return game.white_user if game.ply == 0 else game.black_user


def swiss_result(game: PairedGame) -> SwissResult | None:
    """The game's result as the tournament counts it (None: still on, or aborted by nobody's
    absence)."""
    if game.status == GameStatus.FINISHED and game.result is not None:
        try:
            return SwissResult(game.result)
        except ValueError:
            return None
    missing = absentee(game)
    if missing is None:
        return None
    return SwissResult.BLACK_WINS if missing == game.white_user else SwissResult.WHITE_WINS


def _arena_result(result: SwissResult, colour: Colour) -> ArenaResult:
    points = result.points(colour)
    return ArenaResult.WIN if points == 1.0 else ArenaResult.DRAW if points == 0.5 else ArenaResult.LOSS


@dataclass
class ArenaLine:
    """One player's line of an arena's table."""

    user_id: int
    score: int = 0
    sheet: list[int] = field(default_factory=list)
    """Points of each finished game, oldest first."""
    berserks: list[bool] = field(default_factory=list)
    """Whether the player berserked in each game of :attr:`sheet`."""
    results: list[ArenaResult] = field(default_factory=list)
    opponents: list[int] = field(default_factory=list)
    """Every opponent, oldest first (games on included)."""
    colours: list[Colour] = field(default_factory=list)
    playing: str | None = None
    """The id of the tournament game they are in now."""

    @property
    def on_fire(self) -> bool:
        return is_on_fire(self.results)

    def copy(self) -> ArenaLine:
        """A line to count further games on, this one left as it is."""
        return ArenaLine(
            self.user_id,
            self.score,
            list(self.sheet),
            list(self.berserks),
            list(self.results),
            list(self.opponents),
            list(self.colours),
            self.playing,
        )


def arena_lines(
    players: Sequence[EntryRow],
    paired: Sequence[PairedGame],
    before: dict[int, ArenaLine] | None = None,
) -> dict[int, ArenaLine]:
    """Every entered player's arena line, from the games in order (a player who left keeps
    their line).  ``before``: the lines counted from the event's earlier games, all over
    (:mod:`.records` keeps them), which ``paired`` continues; they are copied, not changed."""
    lines = {user_id: line.copy() for user_id, line in (before or {}).items()}
    for p in players:
        lines.setdefault(p.user_id, ArenaLine(p.user_id))
    for game in paired:
        for me, other, colour in (
            (game.white_user, game.black_user, Colour.WHITE),
            (game.black_user, game.white_user, Colour.BLACK),
        ):
            line = lines.setdefault(me, ArenaLine(me))
            line.opponents.append(other)
            line.colours.append(colour)
            result = swiss_result(game)
            if result is None:
                if game.status == GameStatus.ACTIVE:
                    line.playing = game.game_id
                continue
            mine = _arena_result(result, colour)
            bonus = berserk_bonus(game, me)
            points = arena_points(mine, on_fire=is_on_fire(line.results), berserked=bonus)
            line.results.append(mine)
            line.sheet.append(points)
            line.berserks.append(game.berserked(me))
            line.score += points
    return lines


def arena_waiting(
    players: Sequence[EntryRow], lines: dict[int, ArenaLine], busy: set[int], ratings: dict[int, int]
) -> list[ArenaPlayer]:
    """The active players free to be paired now, as the pairing library wants them."""
    out = []
    for entry in players:
        line = lines[entry.user_id]
        if not entry.active or entry.user_id in busy or line.playing is not None:
            continue
        out.append(
            ArenaPlayer(
                id=entry.user_id,
                score=line.score,
                rating=ratings.get(entry.user_id, 1500),
                recent_opponents=tuple(reversed(line.opponents[-RECENT_OPPONENTS:])),
                colours=tuple(line.colours),
            )
        )
    return out


def arena_table(
    players: Sequence[EntryRow], lines: dict[int, ArenaLine], ratings: dict[int, int]
) -> list[dict[str, Any]]:
    """The arena's standings, best first: score, then rating, then name."""
    rows = sorted(players, key=lambda p: (-lines[p.user_id].score, -ratings.get(p.user_id, 1500), p.name))
    return [
        {
            "rank": rank,
            "name": p.name,
            "title": BOT_TITLE if p.bot else None,
            "rating": ratings.get(p.user_id, 1500),
            "score": lines[p.user_id].score,
            "sheet": lines[p.user_id].sheet,
            "berserks": lines[p.user_id].berserks,
            "fire": lines[p.user_id].on_fire,
            "active": p.active,
            "playing": lines[p.user_id].playing,
        }
        for rank, p in enumerate(rows, start=1)
    ]


def swiss_record(
    players: Sequence[EntryRow],
    paired: Sequence[PairedGame],
    byes: dict[int, int],
    ratings: dict[int, int],
    played: int,
) -> tuple[list[SwissPlayer], list[SwissRound]]:
    """The Swiss library's record of rounds 1 to ``played`` (an empty round stays a round), cut
    before the first round with a game still on."""
    swiss_players = [
        SwissPlayer(
            id=p.user_id,
            rating=ratings.get(p.user_id, 1500),
            joined_round=p.joined_round,
            withdrawn_after=None if p.active else p.withdrawn_after,
        )
        for p in players
    ]
    rounds: list[SwissRound] = []
    for number in range(1, played + 1):
        games = []
        for g in paired:
            if g.round != number:
                continue
            result = swiss_result(g)
            if result is None:
                return swiss_players, rounds  # a round still on: only the ones before count
            games.append(Game(white=g.white_user, black=g.black_user, result=result))
        rounds.append(SwissRound(games=tuple(games), bye=byes.get(number)))
    return swiss_players, rounds


def swiss_table(
    players: Sequence[EntryRow],
    swiss_players: list[SwissPlayer],
    rounds: list[SwissRound],
    ratings: dict[int, int],
) -> list[dict[str, Any]]:
    """The Swiss standings with their tie-breaks (:func:`exochess.tournament.standings`)."""
    names = {p.user_id: p for p in players}
    return [
        {
            "rank": s.rank,
            "name": names[s.player].name,
            "title": BOT_TITLE if names[s.player].bot else None,
            "rating": ratings.get(s.player, 1500),
            "score": s.score,
            "buchholz": s.buchholz,
            "buchholz_cut1": s.buchholz_cut1,
            "sonneborn_berger": s.sonneborn_berger,
            "wins": s.wins,
            "active": names[s.player].active,
        }
        for s in swiss_standings(swiss_players, rounds)
    ]
