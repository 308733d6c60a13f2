"""Bot accounts (issue 47): accounts whose games a program plays through the API.

An account becomes a BOT by ``POST /api/bot/account/upgrade`` (a token with ``bot:play``),
once and for good, and only before it has played any game: a person's rating history must not
turn into a program's.  A bot keeps its account and ratings; it is titled ``BOT`` wherever its
name shows (lobby, game page, profile, leaderboard), and it shares the rating pools with
people, marked, as on lichess (a pool of its own would leave it without opponents to be
rated against on a small site).  Bots play only through the API; people challenge them from
the ``/bots`` page.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine, func, or_, select, update
from sqlalchemy.exc import IntegrityError

from exochess.web.accounts.users import User, skeleton
from exochess.web.domain import N_, Conflict
from exochess.web.storage.store import games, now, users

HOUSE_LEVELS = tuple(range(1, 9))
"""The computer's levels that have a house bot account (level 0, random moves, has none)."""


def house_name(level: int) -> str:
    """The account name of the house bot of ``level``."""
    return f"ExoBot-L{level}"


class AlreadyPlayed(Conflict):
    """The account has played a game: it cannot become a bot."""


@dataclass(frozen=True)
class BotInfo:
    """A bot account as the ``/bots`` page lists it."""

    id: int
    name: str


def is_bot(engine: Engine, user_id: int) -> bool:
    """Whether the account ``user_id`` is a bot."""
    with engine.connect() as conn:
        return bool(conn.execute(select(users.c.bot).where(users.c.id == user_id)).scalar_one_or_none())


def upgrade_to_bot(engine: Engine, user: User) -> bool:
    """Make ``user`` a bot; False if it is one already.  :class:`AlreadyPlayed` if any game
    has one of its seats (checked and set in one transaction)."""
    with engine.begin() as conn:
        played = conn.execute(
            select(func.count())
            .select_from(games)
            .where(or_(games.c.white_user == user.id, games.c.black_user == user.id))
        ).scalar_one()
        if played:
            raise AlreadyPlayed(
                N_("an account that has played a game cannot become a bot (this one has {count})"),
                count=played,
            )
        res = conn.execute(
            update(users).where(users.c.id == user.id, users.c.bot.is_(False)).values(bot=True)
        )
        return res.rowcount == 1


def make_bot(engine: Engine, user_id: int) -> None:
    """Mark an account a bot whatever it played (the site's own house bots, made as bots)."""
    with engine.begin() as conn:
        conn.execute(update(users).where(users.c.id == user_id).values(bot=True))


def bot_accounts(engine: Engine, limit: int = 200) -> list[BotInfo]:
    """The live bot accounts, by name."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(users.c.id, users.c.name)
            .where(users.c.bot.is_(True), users.c.deleted.is_(None))
            .order_by(users.c.name_key)
            .limit(limit)
        )
        return [BotInfo(r.id, r.name) for r in rows]


def house_account(engine: Engine, name: str) -> User | None:
    """The site's own bot account ``name`` (made on first use: a bot with no password, so
    nobody can sign in to it); None when a person's account already holds the name."""
    key, skel = name.lower(), skeleton(name)
    with engine.begin() as conn:
        row = conn.execute(
            select(users.c.id, users.c.name, users.c.bot, users.c.password_hash).where(
                (users.c.name_key == key) | (users.c.skeleton == skel)
            )
        ).first()
        if row is not None:
            if not row.bot or row.password_hash is not None:
                return None
            return User(row.id, row.name)
        made = conn.execute(
            users.insert().values(
                name=name, name_key=key, skeleton=skel, password_hash=None, created=now(), bot=True
            )
        ).inserted_primary_key
    assert made is not None
    return User(int(made[0]), name)


def house_accounts(engine: Engine, levels: tuple[int, ...] = HOUSE_LEVELS) -> dict[int, User]:
    """The house bots' accounts by level (made on first use), leaving out any level whose name
    a person's account holds.  Servers starting together (Redis mode) may race to make an
    account: the loser of the insert reads the winner's."""
    out: dict[int, User] = {}
    for level in levels:
        try:
            user = house_account(engine, house_name(level))
        except IntegrityError:
            user = house_account(engine, house_name(level))
        if user is not None:
            out[level] = user
    return out
