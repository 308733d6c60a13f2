"""The site's own engine as bot accounts (issue 47): ``ExoBot-L1`` ... ``ExoBot-L8``, one per
level, challenged from the ``/bots`` page or the API like any bot.

They go the way an outside bot goes, inside the server: each listens to its account's events
on the hub (the key an event stream reads, so it shows online), accepts a challenge through
:class:`~exochess.web.social.challenges.DirectChallenges` (declining correspondence, which a
house bot could hold for days), watches each of its games on the game's hub key holding its
seat (as a game stream does), and plays through :meth:`GameService.play` with its account, as
``POST /api/bot/game/{id}/move`` does.  Only the moves are computed differently: by the
server's own :class:`~exochess.web.compute.enginepool.EnginePool` at the bot's level, on the
game's clock, charged to the bot's account in the fair share.

Not done (see docs/api.md): "play the computer" (``POST /api/games`` with ``opponent:
computer``) still makes engine seats of its own rather than games against these accounts; and
house bots run only on a server alone, not in Redis mode, where the engine's moves are stored
by ``exochess worker`` processes for engine seats (a bot account's seat is a person's kind).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import zlib
from collections.abc import Coroutine
from typing import Any

from sqlalchemy import Engine, select

from exochess.web.accounts.bots import house_account
from exochess.web.accounts.users import User
from exochess.web.compute.enginepool import EngineBackend
from exochess.web.compute.fairshare import owner_of
from exochess.web.domain import Color, GameServiceError, GameStatus, ServerBusy
from exochess.web.game.service import GameService
from exochess.web.social.challenges import DirectChallenges
from exochess.web.social.events import StreamSocket, UserEvents
from exochess.web.storage.store import games

log = logging.getLogger("exochess.web")

LEVELS = tuple(range(1, 9))
"""The levels that get a house bot."""
LISTEN_S = 60.0
"""How long a house bot waits on its hub key before looking at its games again."""
ADDRESS = "house-bot"
"""The client address the house bots' hub connections count under."""


def house_name(level: int) -> str:
    """The account name of the house bot of ``level``."""
    return f"ExoBot-L{level}"


def _active_games(engine: Engine, user_id: int) -> list[str]:
    with engine.connect() as conn:
        q = select(games.c.id).where(
            (games.c.white_user == user_id) | (games.c.black_user == user_id),
            games.c.status == GameStatus.ACTIVE,
        )
        return [r[0] for r in conn.execute(q)]


class HouseBots:
    """Runs the house bots while the server runs."""

    def __init__(
        self,
        service: GameService,
        events: UserEvents,
        challenges: DirectChallenges,
        pool: EngineBackend,
        levels: tuple[int, ...] = LEVELS,
    ) -> None:
        self.service = service
        self.events = events
        self.challenges = challenges
        self.pool = pool
        self.levels = levels
        self.bots: dict[int, tuple[int, User]] = {}
        """Account id -> (level, account)."""
        self._games: dict[str, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    def _spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def start(self) -> None:
        engine = self.service.storage.engine
        for level in self.levels:
            user = await self.service.db(house_account, engine, house_name(level))
            if user is None:
                log.warning("house bot %s not started: a person's account has the name", house_name(level))
                continue
            self.bots[user.id] = (level, user)
            self._spawn(self._listen(level, user))

    def close(self) -> None:
        for task in [*self._tasks, *self._games.values()]:
            task.cancel()

    # --- events --------------------------------------------------------------------------------

    async def _listen(self, level: int, user: User) -> None:
        socket, _conn = self.events.open(user.id, ADDRESS)
        try:
            for challenge in await self.challenges.pending(user.id):
                await self._answer(user, challenge)
            for game_id in await self.service.db(_active_games, self.service.storage.engine, user.id):
                self._play_later(level, user, game_id)
            async for message in socket.messages(LISTEN_S):
                if message is None:
                    continue
                event = json.loads(message)
                if event.get("type") == "challenge":
                    await self._answer(user, event["challenge"])
                elif event.get("type") == "gameStart":
                    self._play_later(level, user, str(event["game"]["gameId"]))
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("house bot %s stopped listening", user.name)
        finally:
            if not self.service.closed:
                self.events.close_stream(user.id, socket)

    async def _answer(self, user: User, challenge: dict[str, Any]) -> None:
        if (challenge.get("destUser") or {}).get("id") != user.name.lower():
            return
        try:
            if challenge.get("timeControl", {}).get("type") == "correspondence":
                await self.challenges.decline(user, challenge["id"], "tooSlow")
            else:
                await self.challenges.accept(user, challenge["id"])
        except GameServiceError as exc:  # cancelled meanwhile
            log.info("house bot %s: challenge %s: %s", user.name, challenge.get("id"), exc.message)

    def _play_later(self, level: int, user: User, game_id: str) -> None:
        running = self._games.get(game_id)
        if running is None or running.done():
            self._games[game_id] = self._spawn(self._play(level, user, game_id))

    # --- a game --------------------------------------------------------------------------------

    async def _play(self, level: int, user: User, game_id: str) -> None:
        service = self.service
        live = await service.get(game_id)
        seat = live.seat_of(None, user.id)
        if seat is None:
            return
        socket = StreamSocket()
        service.hub.join(game_id, socket, seat, ADDRESS)
        try:
            await service.reader.announce_presence(live)
            while True:
                live = await service.get(game_id)
                if not live.active:
                    return
                if live.to_move() == seat:
                    try:
                        await self._move(level, user, game_id, seat)
                    except ServerBusy as exc:  # the engine is full: try again when it says
                        await asyncio.sleep(min(float(exc.retry_after), LISTEN_S))
                    continue
                # the next state (a move, the end) comes on the game's hub key
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(socket.queue.get(), LISTEN_S)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("house bot %s: game %s", user.name, game_id)
        finally:
            self._games.pop(game_id, None)
            if service.hub.leave(game_id, socket) and not service.closed:
                with contextlib.suppress(GameServiceError):
                    await service.reader.announce_presence(await service.get(game_id))

    async def _move(self, level: int, user: User, game_id: str, seat: Color) -> None:
        service = self.service
        live = await service.get(game_id)
        row, ply = live.row, live.board.ply()
        text = await self.pool.move(
            row.variant,
            row.start_fen,
            list(row.moves),
            level,
            zlib.crc32(f"{row.id}:{ply}".encode()),
            service.computer.budget(live),
            game_id=row.id,
            # charged to the person it plays, so that nobody takes the engine through it
            owner=owner_of(live.row.user_of(seat.other), None, row.id),
        )
        if text is None:
            raise RuntimeError("the engine backend stores its moves itself (Redis mode): no house bots there")
        try:
            await service.play(game_id, None, text, ply, user_id=user.id)
        except GameServiceError as exc:  # the game moved on (the opponent resigned...)
            log.info("house bot %s: move %s in %s not played: %s", user.name, text, game_id, exc.message)
