"""Direct challenges of the API (issue 47): one account challenges another by name, which
accepts or declines, as lichess's ``POST /api/challenge/{username}``.

They are rows of the lobby's ``challenges`` table with ``dest_user`` set, which the lobby
neither lists nor expires with its poster's lobby sockets.  Both accounts hear of every step on
their event streams (``challenge``, ``challengeCanceled``, ``challengeDeclined``; the game's
``gameStart`` comes from :class:`~exochess.web.social.events.UserEvents`).  A declined or
cancelled challenge is deleted; one left unanswered goes after :data:`CHALLENGE_TTL`.
Accepting is the lobby's one guarded update of the stored row, so of two accepts (two
processes, a retry) one makes the game.

A challenge to a house bot (``ExoBot-L3``) is answered at once by the server that received it
(:meth:`DirectChallenges._house_answer`): accepted when the engine can take the game, the
bot's seat then an engine seat at its level; declined otherwise, with lichess's reason.
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
from typing import Any

from sqlalchemy import Engine, delete, select

from exochess.errors import UnknownVariantError
from exochess.variants import find_variant
from exochess.web.accounts.ratings import ratings_of
from exochess.web.accounts.users import Accounts, User
from exochess.web.compute.fairshare import owner_of
from exochess.web.domain import (
    N_,
    ChallengeNotFound,
    ChallengeStatus,
    Conflict,
    EngineBusy,
    GameServiceError,
    InvalidRequest,
    PlayerNotFound,
    SeatChoice,
    WrongSeat,
)
from exochess.web.game.service import GameService
from exochess.web.game.timecontrol import NO_CLOCK, TimeControl, TimeControlKind
from exochess.web.social.apiview import account_json, challenge_json
from exochess.web.social.events import UserEvents
from exochess.web.social.lobby import account_key, game_from_challenge
from exochess.web.storage.store import ChallengeLimitError, ChallengeRow, challenges, hash_secret, now

log = logging.getLogger("exochess.web")

CHALLENGE_TTL = dt.timedelta(minutes=20)
"""An unanswered direct challenge goes after this long."""
PER_ACCOUNT = 10
"""Open direct challenges one account may have sent at once (a bot tournament's organiser
challenges several bots)."""
DECLINE_REASONS = {
    "generic": "I'm not accepting challenges at the moment.",
    "later": "This is not the right time for me, please ask again later.",
    "tooFast": "This time control is too fast for me, please challenge again with a slower game.",
    "tooSlow": "This time control is too slow for me, please challenge again with a faster game.",
    "timeControl": "I'm not accepting challenges with this time control.",
    "rated": "Please send me a rated challenge instead.",
    "casual": "Please send me a casual challenge instead.",
    "variant": "I'm not willing to play this game right now.",
    "noBot": "I'm not accepting challenges from bots.",
    "onlyBot": "I'm only accepting challenges from bots.",
}
"""lichess's decline reasons (key -> the text the challenger reads)."""


def open_to_or_from(engine: Engine, user_id: int, since: dt.datetime) -> list[ChallengeRow]:
    """The open direct challenges sent to or by ``user_id``, dropping those older than ``since``."""
    key = account_key(user_id)
    with engine.begin() as conn:
        conn.execute(
            delete(challenges).where(
                challenges.c.dest_user.is_not(None),
                challenges.c.status == ChallengeStatus.OPEN,
                challenges.c.created < since,
            )
        )
        rows = conn.execute(
            select(challenges)
            .where(
                challenges.c.status == ChallengeStatus.OPEN,
                challenges.c.dest_user.is_not(None),
                (challenges.c.dest_user == user_id) | (challenges.c.poster_key == key),
            )
            .order_by(challenges.c.created)
        )
        return [ChallengeRow(**r._mapping) for r in rows]


def remove_open(engine: Engine, challenge_id: str) -> bool:
    """Delete the open challenge ``challenge_id``; False if it was no longer open."""
    with engine.begin() as conn:
        res = conn.execute(
            delete(challenges).where(
                challenges.c.id == challenge_id, challenges.c.status == ChallengeStatus.OPEN
            )
        )
        return res.rowcount == 1


def parse_clock(limit: object, increment: object, days: object, tiny: bool = False) -> TimeControl:
    """A time control from lichess's fields: ``clock.limit`` and ``clock.increment`` in
    seconds (real time), or ``days`` (correspondence), or neither (no clock)."""
    if limit is None and increment is None and days is None:
        return NO_CLOCK
    try:
        if days is not None:
            if limit is not None:
                raise InvalidRequest(N_("give either clock.limit and clock.increment, or days"))
            return TimeControl.parse(f"{int(str(days))}d")
        if limit is None:
            raise InvalidRequest(N_("clock.limit is required with clock.increment (seconds)"))
        seconds = float(str(limit))
        inc = int(str(increment)) if increment is not None else 0
        minutes = seconds / 60
        text = f"{minutes:g}+{inc}"
        return TimeControl.parse(text, any_minutes=tiny)
    except ValueError as exc:
        raise InvalidRequest(N_("bad time control: {reason}"), reason=str(exc)) from exc


class DirectChallenges:
    """Sends, accepts, declines and cancels direct challenges."""

    def __init__(
        self, service: GameService, events: UserEvents, accounts: Accounts, tiny_clocks: bool = False
    ) -> None:
        self.service = service
        self.events = events
        self.accounts = accounts
        self.tiny_clocks = tiny_clocks

    async def _users_json(self, row: ChallengeRow) -> tuple[dict[str, Any], dict[str, Any]]:
        ids = {(u, row.variant) for u in (row.poster_user, row.dest_user) if u is not None}
        infos = await self.service.db(ratings_of, self.service.storage.engine, ids)

        def one(user_id: int | None, fallback: str) -> dict[str, Any]:
            info = infos.get((user_id, row.variant)) if user_id is not None else None
            if info is None:
                return account_json(fallback)
            return account_json(info["name"] or fallback, info["title"], info["rating"], info["provisional"])

        return one(row.poster_user, row.poster_name), one(row.dest_user, "")

    async def to_json(self, row: ChallengeRow, status: str | None = None) -> dict[str, Any]:
        """The challenge as lichess's API writes one."""
        challenger, dest = await self._users_json(row)
        out = challenge_json(row, challenger, dest)
        if status is not None:
            out["status"] = status
        return out

    async def _tell_both(self, row: ChallengeRow, event: dict[str, Any]) -> None:
        for user_id in {row.poster_user, row.dest_user}:
            if user_id is not None:
                await self.events.emit(user_id, event)

    async def create(
        self,
        challenger: User,
        dest_name: str,
        *,
        variant: str,
        time_control: TimeControl,
        rated: bool,
        color: str,
    ) -> dict[str, Any]:
        """Challenge the account ``dest_name``: the challenge as lichess's API writes it."""
        dest = await self.service.db(self.accounts.by_name, dest_name)
        if dest is None:
            raise PlayerNotFound(dest_name[:40])
        if dest.id == challenger.id:
            raise Conflict(N_("you cannot challenge yourself"))
        try:
            game = find_variant(variant)
        except UnknownVariantError as exc:
            raise InvalidRequest(str(exc)) from exc
        if color not in tuple(SeatChoice):
            raise InvalidRequest(N_("color must be 'white', 'black' or 'random'"))
        if rated and time_control == NO_CLOCK:
            raise InvalidRequest(N_("a rated challenge needs a time control (real time or correspondence)"))
        row = ChallengeRow(
            id=secrets.token_urlsafe(6).replace("-", "x").replace("_", "y"),
            variant=game.name,
            time_control=time_control.text,
            color=SeatChoice(color),
            poster_name=challenger.name,
            poster_key=account_key(challenger.id),
            poster_secret=hash_secret(secrets.token_urlsafe(16)),
            poster_address=None,
            status=ChallengeStatus.OPEN,
            game_id=None,
            poster_color=None,
            created=now(),
            poster_user=challenger.id,
            rated=bool(rated),
            dest_user=dest.id,
        )
        try:
            await self.service.db(
                lambda: self.service.storage.add_challenge(row, per_key=PER_ACCOUNT, per_address=PER_ACCOUNT)
            )
        except ChallengeLimitError as exc:
            raise Conflict(exc.template, **exc.params) from exc
        data = await self.to_json(row)
        await self._tell_both(row, {"type": "challenge", "challenge": data})
        level = self.service.new_games.house_level(dest.id)
        if level is not None:
            await self._house_answer(row, dest, level, time_control)
        return data

    async def _house_answer(self, row: ChallengeRow, bot: User, level: int, control: TimeControl) -> None:
        """A house bot answers ``row`` at once: declined if the game would hold the engine for
        days (correspondence) or the engine has no room for it now, else accepted, the bot's
        seat played by the computer at ``level``, charged to the challenger's share."""
        service = self.service
        pool = service.pool
        if control.kind == TimeControlKind.CORRESPONDENCE:
            await self.decline(bot, row.id, "tooSlow")
            return
        if pool is None:
            await self.decline(bot, row.id, "generic")
            return
        owner = owner_of(row.poster_user, None)
        try:
            key = await pool.reserve(owner, level)
        except EngineBusy:
            await self.decline(bot, row.id, "later")
            return
        try:
            game_id = await self.accept(bot, row.id, engine=True)
        except BaseException as exc:
            await pool.claim(key, "", owner)
            if isinstance(exc, GameServiceError):  # cancelled meanwhile: nothing to answer
                log.info("house bot %s: challenge %s: %s", bot.name, row.id, exc.message)
                return
            raise
        await pool.claim(key, game_id, owner)

    async def _load(self, challenge_id: str) -> ChallengeRow:
        if not isinstance(challenge_id, str) or not challenge_id.isascii() or len(challenge_id) > 32:
            raise ChallengeNotFound(str(challenge_id)[:40])
        row = await self.service.db(self.service.storage.load_challenge, challenge_id)
        if row is None or row.dest_user is None:
            raise ChallengeNotFound(challenge_id)
        return row

    async def accept(self, user: User, challenge_id: str, engine: bool = False) -> str:
        """Accept a challenge sent to ``user``: the new game's id (``engine``: ``user`` is a
        house bot, whose seat the computer plays)."""
        row = await self._load(challenge_id)
        if row.dest_user != user.id:
            raise WrongSeat(N_("this challenge is not addressed to you"))
        if row.status != ChallengeStatus.OPEN:
            raise Conflict(N_("this challenge has already been accepted"))
        _poster, live, _secrets = await game_from_challenge(
            self.service,
            row,
            user.id,
            user.name,
            N_("this challenge has just been accepted, declined or cancelled"),
            engine=engine,
        )
        return live.row.id

    async def decline(self, user: User, challenge_id: str, reason: str = "generic") -> None:
        """Decline a challenge sent to ``user`` with one of :data:`DECLINE_REASONS`."""
        if reason not in DECLINE_REASONS:
            raise InvalidRequest(
                N_("unknown reason {reason}: the reasons are {reasons}"),
                reason=repr(reason),
                reasons=", ".join(DECLINE_REASONS),
            )
        row = await self._load(challenge_id)
        if row.dest_user != user.id:
            raise WrongSeat(N_("this challenge is not addressed to you"))
        await self._remove(row)
        data = await self.to_json(row, "declined")
        data["declineReason"] = DECLINE_REASONS[reason]
        data["declineReasonKey"] = reason
        await self._tell_both(row, {"type": "challengeDeclined", "challenge": data})

    async def cancel(self, user: User, challenge_id: str) -> None:
        """Withdraw a challenge ``user`` sent."""
        row = await self._load(challenge_id)
        if row.poster_user != user.id:
            raise WrongSeat(N_("only its challenger may cancel a challenge"))
        await self._remove(row)
        await self._tell_both(
            row, {"type": "challengeCanceled", "challenge": await self.to_json(row, "canceled")}
        )

    async def _remove(self, row: ChallengeRow) -> None:
        if row.status != ChallengeStatus.OPEN:
            raise Conflict(N_("this challenge has already been accepted"))
        if not await self.service.db(remove_open, self.service.storage.engine, row.id):
            raise Conflict(N_("this challenge has just been accepted, declined or cancelled"))

    async def pending(self, user_id: int) -> list[dict[str, Any]]:
        """The open challenges sent to or by ``user_id``, as lichess's API writes them."""
        rows = await self.service.db(
            open_to_or_from, self.service.storage.engine, user_id, now() - CHALLENGE_TTL
        )
        return [await self.to_json(r) for r in rows]
