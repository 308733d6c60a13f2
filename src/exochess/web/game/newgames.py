"""New games (:class:`NewGames`): a creator's request checked (variant, set-up position,
opponent, seat, level) and the game stored with its seats' secrets.  The service then loads
the game and starts the computer if it moves first.

The computer's seat at a level with a house bot (:data:`~exochess.web.accounts.bots.HOUSE_LEVELS`)
is held by that bot's account (``ExoBot-L3`` plays level 3), whether the game came from "play
the computer" or from a challenge to the bot: one mechanism, the engine seat, under the bot's
name (docs/decisions/0021-house-bots-are-engine-seats.md)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass

from exochess.board import Board
from exochess.errors import FenError, UnknownVariantError
from exochess.variant import Variant
from exochess.variants import find_variant
from exochess.web.accounts.bots import house_accounts
from exochess.web.accounts.users import User
from exochess.web.compute.enginepool import RANDOM_LEVEL, EngineBackend
from exochess.web.domain import (
    N_,
    Color,
    EngineDisabled,
    InvalidRequest,
    Opponent,
    PlayerKind,
    PositionTooLarge,
    SeatChoice,
)
from exochess.web.game.analysis import MAX_START_MOVES, start_moves
from exochess.web.game.live import new_id
from exochess.web.game.timecontrol import NO_CLOCK, TimeControl
from exochess.web.storage.movestore import Runner
from exochess.web.storage.store import Storage
from exochess.web.storage.threads import DbThreads

MAX_LEVEL = 8
"""The computer's strongest level (:data:`~exochess.web.compute.enginepool.RANDOM_LEVEL` is its
weakest)."""


@dataclass(frozen=True)
class Created:
    """A stored new game: its id, every seat's secret, and the creator's colour."""

    game_id: str
    secrets: dict[Color, str]
    mine: Color


def _variant(name: str) -> Variant:
    try:
        return find_variant(name)
    except UnknownVariantError as exc:
        raise InvalidRequest(str(exc)) from exc


class NewGames:
    """Checks and stores new games.  Ports: the storage and its threads, the pool of free
    positions (``cpu``: a set-up position's moves are counted there) and the engine backend
    (None: computer games are disabled)."""

    def __init__(self, storage: Storage, db: DbThreads, cpu: Runner, pool: EngineBackend | None) -> None:
        self.storage = storage
        self.db = db
        self.cpu = cpu
        self.pool = pool
        self.house: dict[int, User] = {}
        """The house bots' accounts by level (none until the server starts them): the account
        that holds a computer seat at that level."""

    async def start_house_bots(self) -> None:
        """Make (or find) the house bots' accounts, which then hold the computer's seats."""
        self.house = await self.db.call(house_accounts, self.storage.engine)

    def house_level(self, user_id: int | None) -> int | None:
        """The level the account ``user_id`` plays if it is a house bot, else None."""
        for level, user in self.house.items():
            if user.id == user_id:
                return level
        return None

    async def create(
        self,
        variant_name: str,
        opponent: Opponent | str,
        level: int | None,
        color: SeatChoice | str,
        fen: str | None,
        time_control: TimeControl,
        user_id: int | None,
        names: Mapping[Color, str] | None,
        seat_secrets: Mapping[Color, str] | None,
        owner: str | None = None,
    ) -> Created:
        """A game against the computer or a friend (see :meth:`GameService.create`); ``owner``
        holds one of its share of the free positions' places while a set-up position is read."""
        names, seat_secrets = names or {}, seat_secrets or {}
        variant = _variant(variant_name)
        try:
            board = Board(variant, fen=fen.strip() if fen and fen.strip() else None)
        except FenError as exc:
            raise InvalidRequest(N_("bad FEN: {reason}"), reason=str(exc)) from exc
        if fen and fen.strip():
            # a set-up position may have any number of legal moves: count them off the loop
            count = await self.cpu.run(
                "listing its legal moves", start_moves, variant.name, fen.strip(), owner=owner
            )
            if count > MAX_START_MOVES:
                raise PositionTooLarge(
                    f"position too large: {count:,} legal moves"
                    f" (a game may start from a position with at most {MAX_START_MOVES:,})"
                )
        if board.is_game_over():
            raise InvalidRequest(N_("the game is already over in that position"))
        if opponent not in tuple(Opponent):
            raise InvalidRequest(N_("opponent must be 'computer' or 'friend'"))
        if color not in tuple(SeatChoice):
            raise InvalidRequest(N_("color must be 'white', 'black' or 'random'"))
        mine = secrets.choice(list(Color)) if color == SeatChoice.RANDOM else Color(color)
        computer = opponent == Opponent.COMPUTER
        if computer:
            if (
                not isinstance(level, int)
                or isinstance(level, bool)
                or not RANDOM_LEVEL <= level <= MAX_LEVEL
            ):
                raise InvalidRequest(
                    N_("level must be an integer from {low} to {high}"), low=RANDOM_LEVEL, high=MAX_LEVEL
                )
            if self.pool is None:
                raise EngineDisabled(N_("computer games are disabled on this server"))
            await self.pool.admit()
        else:
            level = None
        kinds = {c: PlayerKind.ENGINE if computer and c != mine else PlayerKind.HUMAN for c in Color}
        # the computer's seat is its house bot's (unrated all the same: "play the computer" is
        # practice; a rated game against a bot is a challenge to it)
        bot = self.house.get(level) if computer and level is not None else None
        seat_users = {mine: user_id, mine.other: None if bot is None else bot.id}
        if bot is not None:  # its name shows where display names do (game lists, PGN)
            names = {**names, mine.other: bot.name}
        created = Created(new_id(), {c: secrets.token_urlsafe(16) for c in Color} | dict(seat_secrets), mine)
        await self.db.call(
            lambda: self.storage.create_game(
                id=created.game_id,
                variant=variant.name,
                start_fen=board.starting_fen,
                white=kinds[Color.WHITE],
                black=kinds[Color.BLACK],
                level=level,
                white_secret=created.secrets[Color.WHITE],
                black_secret=created.secrets[Color.BLACK],
                time_control=None if time_control == NO_CLOCK else time_control.text,
                white_user=seat_users[Color.WHITE],
                black_user=seat_users[Color.BLACK],
                white_name=names.get(Color.WHITE),
                black_name=names.get(Color.BLACK),
            )
        )
        return created

    async def create_between(
        self,
        variant_name: str,
        white_user: int | None,
        black_user: int | None,
        rated: bool,
        time_control: TimeControl,
        names: Mapping[Color, str] | None,
        seat_secrets: Mapping[Color, str] | None,
        berserkable: bool = False,
        engine: Color | None = None,
    ) -> Created:
        """A game between two accounts (see :meth:`GameService.create_between`); ``engine``, if
        given, is the seat of a house bot, which the computer plays at the bot's level
        (``berserkable``: an arena tournament's game)."""
        names, seat_secrets = names or {}, seat_secrets or {}
        variant = _variant(variant_name)
        level = None
        if engine is not None:
            level = self.house_level(white_user if engine == Color.WHITE else black_user)
            if level is None:
                raise InvalidRequest(N_("only a house bot's seat is played by the computer"))
            if self.pool is None:
                raise EngineDisabled(N_("computer games are disabled on this server"))
        kinds = {c: PlayerKind.ENGINE if c == engine else PlayerKind.HUMAN for c in Color}
        if rated and (white_user is None or black_user is None or white_user == black_user):
            raise InvalidRequest(N_("a rated game is played between two different accounts"))
        if rated and time_control == NO_CLOCK:
            raise InvalidRequest(N_("a rated game needs a time control"))
        created = Created(
            new_id(), {c: secrets.token_urlsafe(16) for c in Color} | dict(seat_secrets), Color.WHITE
        )
        await self.db.call(
            lambda: self.storage.create_game(
                id=created.game_id,
                variant=variant.name,
                start_fen=variant.starting_fen,
                white=kinds[Color.WHITE],
                black=kinds[Color.BLACK],
                level=level,
                white_secret=created.secrets[Color.WHITE],
                black_secret=created.secrets[Color.BLACK],
                time_control=None if time_control == NO_CLOCK else time_control.text,
                white_user=white_user,
                black_user=black_user,
                rated=rated,
                white_name=names.get(Color.WHITE),
                black_name=names.get(Color.BLACK),
                berserkable=berserkable,
            )
        )
        return created
