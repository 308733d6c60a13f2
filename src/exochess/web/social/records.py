"""A tournament's stored rows as this process last read them, kept so that the next read
costs only what changed (issue 46's targets; docs/decisions/0022-tournament-records.md).

A view or a pairing step needs the event's entries, all its games with their results, and
its players' ratings.  An arena's games grow with the event (thousands in an hour of 200
players), and every server reads them at every change and every pass of the loop.  What is
kept, per event (:class:`EventRecords`):

- the *settled* games: the event's oldest games up to the first one still on, all over (a
  game's result never changes once it is over), and the arena lines counted from them; a
  read then asks only for the games made since the oldest game still on
  (:func:`~exochess.web.storage.tournaments.paired_games_since`), with the number of older
  games as a check: another number (a game this process never saw) makes it read them all
  again;
- the ratings: read again only for the players of the games that ended since the last read
  (a rating changes in the transaction that stores a result, and the ratings are read after
  the games), for new entries, and for everyone every :data:`RATINGS_FULL_S` (a rating
  changed by a game outside the event).

Nothing is a running total that another server could disagree with: the settled part is the
same rows a recount reads, so a view is still equal to a recount from scratch (the tests check
it).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from dataclasses import dataclass, field, replace

from exochess.web.accounts.ratings import players_by_id
from exochess.web.domain import GameStatus
from exochess.web.game.service import GameService
from exochess.web.social.standings import ArenaLine, arena_lines
from exochess.web.storage import tournaments as db
from exochess.web.storage.tournaments import ARENA, EntryRow, PairedGame, TournamentRow

RATINGS_FULL_S = 10.0
"""How often every rating of an event is read again (one changed outside the event shows
then)."""


@dataclass(frozen=True)
class Records:
    """One read of an event: its row, entries, games (oldest first) and ratings."""

    row: TournamentRow
    players: list[EntryRow]
    paired: list[PairedGame]
    ratings: dict[int, int]
    settled: int
    """How many of :attr:`paired`'s first games are over (and counted in :attr:`lines`)."""
    lines: dict[int, ArenaLine]
    """An arena's lines counted from the settled games (empty for a Swiss event)."""

    def arena_lines(self) -> dict[int, ArenaLine]:
        """Every entered player's arena line (:func:`~.standings.arena_lines` of all games)."""
        return arena_lines(self.players, self.paired[self.settled :], self.lines)

    def fingerprint(self) -> int:
        """Equal for two reads that show the same view: everything a view shows, without what
        it does not (the lease, the moves of the games on)."""
        recent = tuple(
            replace(g, ply=0) if g.status == GameStatus.ACTIVE else g for g in self.paired[self.settled :]
        )
        return hash(
            (
                replace(self.row, lease_until=None),
                tuple(self.players),
                self.settled,
                recent,
                tuple(sorted(self.ratings.items())),
            )
        )


@dataclass
class _Kept:
    since: dt.datetime | None = None
    """The settled games are those made before this (None: none yet)."""
    settled: list[PairedGame] = field(default_factory=list)
    lines: dict[int, ArenaLine] = field(default_factory=dict)
    ratings: dict[int, int] = field(default_factory=dict)
    ratings_at: float = float("-inf")
    """When every rating was last read (``time.monotonic``)."""
    over: set[str] = field(default_factory=set)
    """The unsettled games that were over at the last read (their players' ratings read)."""


class EventRecords:
    """Reads events' records for :class:`~.tournaments.Tournaments`, keeping what does not
    change (see the module docstring)."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self._kept: dict[str, _Kept] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def forget(self, tournament_id: str) -> None:
        """Drop what is kept of an event (it finished)."""
        self._kept.pop(tournament_id, None)
        self._locks.pop(tournament_id, None)

    async def read(self, row: TournamentRow) -> Records:
        """The event's records now (one read at a time per event: each builds on the last)."""
        async with self._locks.setdefault(row.id, asyncio.Lock()):
            return await self._read(row)

    async def _read(self, row: TournamentRow) -> Records:
        engine = self.service.storage.engine
        kept = self._kept.setdefault(row.id, _Kept())
        players = await self.service.db(db.entries, engine, row.id)
        recent, before = await self.service.db(db.paired_games_since, engine, row.id, kept.since)
        if before != len(kept.settled):  # a game this process never saw: read them all
            kept = self._kept[row.id] = _Kept()
            recent, _ = await self.service.db(db.paired_games_since, engine, row.id, None)
        over = {g.game_id for g in recent if g.status != GameStatus.ACTIVE}
        clock = time.monotonic()
        if clock - kept.ratings_at >= RATINGS_FULL_S:
            wanted = {p.user_id for p in players}
            kept.ratings = {}
            kept.ratings_at = clock
        else:
            ended = [g for g in recent if g.game_id in over - kept.over]
            wanted = {u for g in ended for u in (g.white_user, g.black_user)}
            wanted |= {p.user_id for p in players if p.user_id not in kept.ratings}
        if wanted:
            infos = await self.service.db(players_by_id, engine, wanted, row.variant)
            kept.ratings.update({user_id: info["rating"] for user_id, info in infos.items()})
        records = Records(
            row=row,
            players=players,
            paired=[*kept.settled, *recent],
            ratings=dict(kept.ratings),
            settled=len(kept.settled),
            lines=kept.lines,
        )
        self._settle(kept, row, recent)
        kept.over = over & {g.game_id for g in recent if kept.since is None or g.created >= kept.since}
        return records

    @staticmethod
    def _settle(kept: _Kept, row: TournamentRow, recent: list[PairedGame]) -> None:
        """Move the games before the oldest one still on (all over) into the settled ones.  A
        game made at the same instant as the first one kept stays unsettled: the next read asks
        for the games made at or after that instant."""
        first_on = next((i for i, g in enumerate(recent) if g.status == GameStatus.ACTIVE), len(recent))
        if first_on == 0:
            return
        since = recent[first_on].created if first_on < len(recent) else recent[-1].created
        done = [g for g in recent[:first_on] if g.created < since]
        if not done:
            return
        kept.settled = [*kept.settled, *done]
        if row.kind == ARENA:
            kept.lines = arena_lines([], done, kept.lines)
        kept.since = since
