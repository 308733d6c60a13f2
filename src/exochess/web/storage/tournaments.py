"""Tournaments in the database: events, their players, games and byes (issue 46).

Plain functions over an SQLAlchemy ``Engine``, run on the database threads like the rest of
the storage.  The database is the tournament's one source of truth: standings are recounted
from the games (``tournament_games`` joined with ``games``) rather than kept as running totals,
so a restarted server, or another server in Redis mode, sees exactly what the pairing process
saw.  Which process pairs is decided by a lease on the tournament's row (:func:`take_lease`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Engine, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from exochess.web.domain import GameStatus
from exochess.web.storage.store import (
    games,
    now,
    tournament_byes,
    tournament_games,
    tournament_players,
    tournaments,
    users,
)


class TournamentStatus:
    """A tournament's ``status`` column."""

    CREATED = "created"
    """Announced, players may join; not yet started."""
    STARTED = "started"
    FINISHED = "finished"


ARENA = "arena"
SWISS = "swiss"


@dataclass(frozen=True)
class TournamentRow:
    """A tournament's row (see the table ``tournaments`` in :mod:`.store`)."""

    id: str
    kind: str
    variant: str
    name: str
    time_control: str
    rated: bool
    starts_at: dt.datetime
    duration_s: int | None
    rounds: int | None
    round: int
    status: str
    creator: int | None
    private: bool
    schedule_key: str | None
    lease_until: dt.datetime | None
    created: dt.datetime
    finished: dt.datetime | None
    bots_allowed: bool = False
    """Bot accounts may join (lichess's "bot players are allowed"); people always may."""

    @property
    def ends_at(self) -> dt.datetime | None:
        """When an arena stops pairing (None for a Swiss event)."""
        if self.duration_s is None:
            return None
        return self.starts_at + dt.timedelta(seconds=self.duration_s)


@dataclass(frozen=True)
class EntryRow:
    """A player's entry in a tournament."""

    user_id: int
    name: str
    joined: dt.datetime
    joined_round: int
    active: bool
    withdrawn_after: int | None
    bot: bool = False
    """The player is a bot account (titled BOT in the standings)."""


@dataclass(frozen=True)
class PairedGame:
    """A tournament game with what the standings need of it."""

    game_id: str
    round: int
    white_user: int
    black_user: int
    created: dt.datetime
    status: GameStatus
    result: str | None
    """``1-0``, ``0-1``, ``1/2-1/2`` once finished; None while on or when aborted."""
    ply: int
    """Plies played (an aborted game at ply 0 waited for White, at ply 1 for Black)."""
    white_berserk: bool = False
    """White berserked (an arena game: half the time, no increment)."""
    black_berserk: bool = False

    def berserked(self, user_id: int) -> bool:
        """Whether the player ``user_id`` berserked in this game."""
        if user_id == self.white_user:
            return self.white_berserk
        return user_id == self.black_user and self.black_berserk


def _row(r: object) -> TournamentRow:
    return TournamentRow(**{name: getattr(r, name) for name in TournamentRow.__dataclass_fields__})


def create_tournament(engine: Engine, row: TournamentRow) -> bool:
    """Store a new tournament; False when its ``schedule_key`` is taken (another server made
    this scheduled event first)."""
    values = {name: getattr(row, name) for name in TournamentRow.__dataclass_fields__}
    try:
        with engine.begin() as conn:
            conn.execute(insert(tournaments).values(**values))
    except IntegrityError:
        if row.schedule_key is None:
            raise
        return False
    return True


def load_tournament(engine: Engine, tournament_id: str) -> TournamentRow | None:
    with engine.connect() as conn:
        r = conn.execute(select(tournaments).where(tournaments.c.id == tournament_id)).first()
    return None if r is None else _row(r)


def list_tournaments(engine: Engine, since: dt.datetime, limit: int = 100) -> list[TournamentRow]:
    """Public tournaments not finished, and those finished after ``since``, soonest first."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(tournaments)
            .where(
                tournaments.c.private == False,  # noqa: E712 (SQL, not Python)
                or_(tournaments.c.status != TournamentStatus.FINISHED, tournaments.c.finished >= since),
            )
            .order_by(tournaments.c.starts_at)
            .limit(limit)
        )
        return [_row(r) for r in rows]


def unfinished_tournaments(engine: Engine) -> list[TournamentRow]:
    """Every tournament created or started (the director's work list after a start)."""
    with engine.connect() as conn:
        rows = conn.execute(select(tournaments).where(tournaments.c.status != TournamentStatus.FINISHED))
        return [_row(r) for r in rows]


def set_status(
    engine: Engine, tournament_id: str, before: str, after: str, finished: dt.datetime | None = None
) -> bool:
    """Move a tournament from status ``before`` to ``after``; False if it was not at ``before``."""
    with engine.begin() as conn:
        result = conn.execute(
            update(tournaments)
            .where(tournaments.c.id == tournament_id, tournaments.c.status == before)
            .values(status=after, finished=finished)
        )
        return bool(result.rowcount)


def start_early(engine: Engine, tournament_id: str, at: dt.datetime) -> bool:
    """Bring a created event's start to ``at``; False once it has started."""
    with engine.begin() as conn:
        result = conn.execute(
            update(tournaments)
            .where(
                tournaments.c.id == tournament_id,
                tournaments.c.status == TournamentStatus.CREATED,
                tournaments.c.starts_at > at,
            )
            .values(starts_at=at)
        )
        return bool(result.rowcount)


def set_round(engine: Engine, tournament_id: str, before: int, after: int) -> bool:
    """Advance a Swiss event's round counter; False if another process did it first."""
    with engine.begin() as conn:
        result = conn.execute(
            update(tournaments)
            .where(tournaments.c.id == tournament_id, tournaments.c.round == before)
            .values(round=after)
        )
        return bool(result.rowcount)


def take_lease(engine: Engine, tournament_id: str, holder_until: dt.datetime, at: dt.datetime) -> bool:
    """Hold the tournament's pairing lease until ``holder_until`` if nobody holds it at ``at``:
    the one compare-and-set that makes pairing run in exactly one place across servers (both
    databases serialise the update of one row)."""
    with engine.begin() as conn:
        result = conn.execute(
            update(tournaments)
            .where(
                tournaments.c.id == tournament_id,
                or_(tournaments.c.lease_until.is_(None), tournaments.c.lease_until < at),
            )
            .values(lease_until=holder_until)
        )
        return bool(result.rowcount)


def release_lease(engine: Engine, tournament_id: str) -> None:
    with engine.begin() as conn:
        conn.execute(update(tournaments).where(tournaments.c.id == tournament_id).values(lease_until=None))


def entries(engine: Engine, tournament_id: str) -> list[EntryRow]:
    """The tournament's players (withdrawn ones too), in joining order."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(
                tournament_players.c.user_id,
                users.c.name,
                tournament_players.c.joined,
                tournament_players.c.joined_round,
                tournament_players.c.active,
                tournament_players.c.withdrawn_after,
                users.c.bot,
            )
            .join(users, users.c.id == tournament_players.c.user_id)
            .where(tournament_players.c.tournament_id == tournament_id)
            .order_by(tournament_players.c.joined, tournament_players.c.user_id)
        )
        return [EntryRow(*r[:-1], bot=bool(r[-1])) for r in rows]


def join(engine: Engine, tournament_id: str, user_id: int, joined_round: int) -> None:
    """Enter a player, or make a withdrawn or paused one active again (``joined`` becomes the
    time they came back: only games after it can pause them again)."""
    with engine.begin() as conn:
        result = conn.execute(
            update(tournament_players)
            .where(
                tournament_players.c.tournament_id == tournament_id, tournament_players.c.user_id == user_id
            )
            .values(active=True, withdrawn_after=None, joined=now())
        )
        if not result.rowcount:
            conn.execute(
                insert(tournament_players).values(
                    tournament_id=tournament_id,
                    user_id=user_id,
                    joined=now(),
                    joined_round=joined_round,
                    active=True,
                )
            )


def withdraw(engine: Engine, tournament_id: str, user_id: int, after_round: int | None) -> bool:
    """Make a player inactive (withdrawn, or paused by the director); False if not entered."""
    with engine.begin() as conn:
        result = conn.execute(
            update(tournament_players)
            .where(
                tournament_players.c.tournament_id == tournament_id, tournament_players.c.user_id == user_id
            )
            .values(active=False, withdrawn_after=after_round)
        )
        return bool(result.rowcount)


def paired_games(engine: Engine, tournament_id: str) -> list[PairedGame]:
    """The tournament's games, oldest first, with their games' status and result."""
    return paired_games_since(engine, tournament_id, None)[0]


def paired_games_since(
    engine: Engine, tournament_id: str, since: dt.datetime | None
) -> tuple[list[PairedGame], int]:
    """The tournament's games made at or after ``since`` (None: all), oldest first, and how
    many were made before it (a reader that kept those checks that it has them all).  Both in
    one transaction, so that the count and the rows agree."""
    with engine.begin() as conn:
        before = 0
        if since is not None:
            before = conn.execute(
                select(func.count())
                .select_from(tournament_games)
                .where(tournament_games.c.tournament_id == tournament_id, tournament_games.c.created < since)
            ).scalar_one()
        query = (
            select(
                tournament_games.c.game_id,
                tournament_games.c.round,
                tournament_games.c.white_user,
                tournament_games.c.black_user,
                tournament_games.c.created,
                games.c.status,
                games.c.result,
                games.c.ply,
                games.c.white_berserk,
                games.c.black_berserk,
            )
            .join(games, games.c.id == tournament_games.c.game_id)
            .where(tournament_games.c.tournament_id == tournament_id)
            .order_by(tournament_games.c.created, tournament_games.c.game_id)
        )
        if since is not None:
            query = query.where(tournament_games.c.created >= since)
        return [PairedGame(**r._mapping) for r in conn.execute(query)], before


def add_game(
    engine: Engine, tournament_id: str, game_id: str, round_number: int, white_user: int, black_user: int
) -> None:
    with engine.begin() as conn:
        conn.execute(
            insert(tournament_games).values(
                game_id=game_id,
                tournament_id=tournament_id,
                round=round_number,
                white_user=white_user,
                black_user=black_user,
                created=now(),
            )
        )


def byes(engine: Engine, tournament_id: str) -> dict[int, int]:
    """A Swiss event's byes: round -> player."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(tournament_byes.c.round, tournament_byes.c.user_id).where(
                tournament_byes.c.tournament_id == tournament_id
            )
        )
        return {r.round: r.user_id for r in rows}


def add_bye(engine: Engine, tournament_id: str, round_number: int, user_id: int) -> None:
    with engine.begin() as conn:
        conn.execute(
            insert(tournament_byes).values(tournament_id=tournament_id, round=round_number, user_id=user_id)
        )


def users_in_games(engine: Engine, user_ids: Sequence[int]) -> set[int]:
    """Which of these accounts hold a seat in a game still on (anywhere on the site): a player
    is never paired while in another game."""
    if not user_ids:
        return set()
    ids = list(user_ids)
    with engine.connect() as conn:
        rows = conn.execute(
            select(games.c.white_user, games.c.black_user).where(
                games.c.status == GameStatus.ACTIVE,
                or_(games.c.white_user.in_(ids), games.c.black_user.in_(ids)),
            )
        )
        busy: set[int] = set()
        for white, black in rows:
            busy.update(u for u in (white, black) if u is not None)
    return busy & set(ids)


def count_players(engine: Engine, tournament_ids: Sequence[str]) -> dict[str, int]:
    """Players entered (active or not) per tournament."""
    if not tournament_ids:
        return {}
    with engine.connect() as conn:
        rows = conn.execute(
            select(tournament_players.c.tournament_id, func.count())
            .where(tournament_players.c.tournament_id.in_(list(tournament_ids)))
            .group_by(tournament_players.c.tournament_id)
        )
        return {tid: int(n) for tid, n in rows}
