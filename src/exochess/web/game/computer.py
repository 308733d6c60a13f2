"""The computer's turns in live games (:class:`Computer`): one task a game, asking the engine
backend (the engine pool here, or the job queue of Redis mode, whose workers store the move
themselves) and playing its answer through the service's move path."""

from __future__ import annotations

import asyncio
import logging
import math
import time
import zlib
from collections.abc import Awaitable, Callable
from typing import Any

from exochess.web.compute.enginepool import EngineBackend, EngineClock, think_budget_ms
from exochess.web.compute.fairshare import owner_of
from exochess.web.domain import (
    N_,
    Color,
    EngineBusy,
    EngineDisabled,
    GameOver,
    GameServiceError,
    PlayerKind,
    SecretRequired,
    ServerBusy,
    StorageUnavailable,
)
from exochess.web.game.clock import Timing
from exochess.web.game.finisher import TimeRanOut
from exochess.web.game.live import LiveGame
from exochess.web.game.timecontrol import TimeControlKind
from exochess.web.storage.store import now as storage_now

log = logging.getLogger("exochess.web")

ENGINE_RETRY_S = 1.0
"""Delay before the computer tries again to store a move the database refused (busy)."""

PlayPort = Callable[[LiveGame, Color, str, int, int | None], Awaitable[bool]]
"""The service's move path for the computer: play ``text`` for ``seat`` at ``ply``, charged at
most ``think_ms`` on its clock (taking the game's lock); False when the game has moved on or
ended meanwhile (nothing played), else as a player's move."""


class Computer:
    """Runs the computer's turns.  Ports: the engine backend (None: computer games are
    disabled), the site's timing, ``play`` (:data:`PlayPort`) and ``publish`` (send the game's
    new state)."""

    def __init__(
        self,
        pool: EngineBackend | None,
        timing: Timing,
        play: PlayPort,
        publish: Callable[[LiveGame], Awaitable[None]],
    ) -> None:
        self.pool = pool
        self.timing = timing
        self.play = play
        self.publish = publish
        self.closed = False
        self.tasks: dict[str, asyncio.Task[None]] = {}
        """The computer's turn under way in each game."""
        self.waits: dict[str, tuple[int, asyncio.TimerHandle]] = {}
        """Games whose computer move the engine refused: the seconds it said to wait (its
        Retry-After) and the timer that asks again then."""

    def thinking(self, game_id: str) -> bool:
        """Whether the computer's turn is under way in ``game_id``."""
        task = self.tasks.get(game_id)
        return task is not None and not task.done()

    def cancel(self, game_id: str) -> None:
        """Nobody waits for the computer's move any more: cancelling the task stops its search."""
        task = self.tasks.pop(game_id, None)
        if task is not None:
            task.cancel()
        waiting = self.waits.pop(game_id, None)
        if waiting is not None:
            waiting[1].cancel()

    async def check_reply(self, live: LiveGame) -> None:
        """Before a player's move is stored in a game against the computer: raise the refusal
        (:class:`~exochess.web.domain.EngineBusy` or its 429 kind, with Retry-After) the
        computer's reply would meet, so that the move is refused with nothing changed rather
        than stored and left without a reply."""
        if self.pool is None or not live.active:
            return
        await self.pool.check_move(live.row.level or 0, game_id=live.row.id)

    def schedule(self, live: LiveGame) -> None:
        """Start the computer's turn if it is to move in ``live`` (and not thinking already)."""
        if self.closed or self.pool is None:
            return
        if not live.active or live.kind_of(live.to_move()) != PlayerKind.ENGINE:
            return
        if self.thinking(live.row.id):
            return
        waiting = self.waits.pop(live.row.id, None)
        if waiting is not None:
            waiting[1].cancel()  # asked again now (a takeback, a resumed game...)
        self.tasks[live.row.id] = asyncio.create_task(self._turn(live))

    def budget(self, live: LiveGame) -> EngineClock | None:
        """The time both sides have left now, for the engine's time management (None without a
        real-time clock: the level's own think time)."""
        clock = live.clock(self.timing)
        if clock is None or clock.control.kind != TimeControlKind.REALTIME:
            return None
        moment = storage_now()
        return EngineClock(
            clock.left(Color.WHITE, moment),
            clock.left(Color.BLACK, moment),
            clock.increment_of(Color.WHITE),
            clock.increment_of(Color.BLACK),
        )

    async def _turn(self, live: LiveGame) -> None:
        assert self.pool is not None
        try:
            row = live.row
            ply = live.board.ply()
            seed = zlib.crc32(f"{row.id}:{ply}".encode())
            seat, budget = live.to_move(), self.budget(live)
            asked = time.monotonic()
            text = await self.pool.move(
                row.variant,
                row.start_fen,
                list(row.moves),
                row.level or 0,
                seed,
                budget,
                game_id=row.id,
            )
            if text is None:
                return  # queued: a worker stores the move and announces it (Redis mode)
            # charged its think time: the wait for an answer, within what its search may take
            think_ms = math.ceil((time.monotonic() - asked) * 1000)
            if budget is not None:
                allowed = think_budget_ms(row.variant, row.level or 0, budget, seat == Color.WHITE)
                think_ms = min(think_ms, allowed)
            if not await self.play(live, seat, text, ply, think_ms):
                return
        except asyncio.CancelledError:
            raise
        except TimeRanOut:
            pass  # the computer's time ran out: the game is over, and published below
        except EngineBusy as exc:
            # the engine refused the move (the game idle past its place's hold, or its owner's
            # share full): ask again when it said, not every second, and say so once
            if live.row.id not in self.waits:
                log.info(
                    "engine move in game %s refused (%s); asking again in %d s",
                    live.row.id,
                    exc.message,
                    exc.retry_after,
                )
            wait = max(1, int(exc.retry_after))
            handle = asyncio.get_running_loop().call_later(wait, self._ask_again, live)
            self.waits[live.row.id] = (wait, handle)
            return
        except (StorageUnavailable, ServerBusy):
            # not stored, nothing changed (the database, or the pool that reads moves, was
            # busy): the computer tries again a little later
            log.warning("engine move in game %s not stored (server busy); retrying", live.row.id)
            asyncio.get_running_loop().call_later(ENGINE_RETRY_S, self.schedule, live)
            return
        except GameServiceError as exc:
            log.warning("engine move rejected in game %s: %s", live.row.id, exc.message)
            return
        except Exception:
            log.exception("engine failed in game %s", live.row.id)
            return
        finally:
            if self.tasks.get(live.row.id) is asyncio.current_task():
                del self.tasks[live.row.id]
        await self.publish(live)
        self.schedule(live)

    def _ask_again(self, live: LiveGame) -> None:
        self.waits.pop(live.row.id, None)
        self.schedule(live)

    async def evaluate(
        self,
        variant: str,
        start_fen: str,
        texts: list[str],
        movetime_ms: int,
        client: str | None = None,
        owner: str | None = None,
    ) -> dict[str, Any]:
        """The engine's view of the position after ``texts``, searched for ``movetime_ms`` (at
        most the pool's cap), charged to ``owner`` (the account, else the address ``client``)."""
        if self.pool is None:
            raise EngineDisabled(N_("the engine is disabled on this server"))
        return await self.pool.analyse(
            variant, start_fen, texts, movetime_ms, client, owner=owner or owner_of(None, client or "?")
        )

    async def evaluate_game(
        self, live: LiveGame, secret: str | None, user_id: int | None, movetime_ms: int, client: str | None
    ) -> dict[str, Any]:
        """The engine's view of a game's current position.

        While the game is being played only its players may ask (an engine evaluation would be
        an outside help, and engine time is scarce); once it is over, anyone.
        """
        if live.active:
            if not secret and live.seat_of(None, user_id) is None:
                raise SecretRequired(N_("only the players may evaluate a game in progress (seat secret)"))
            live.seat(secret, user_id)
        if live.board.is_game_over():
            raise GameOver(N_("the game is over: there is nothing to evaluate"))
        row = live.row
        # charged like the computer's moves: to the account when signed in, else the address
        return await self.evaluate(
            row.variant, row.start_fen, list(row.moves), movetime_ms, client, owner_of(user_id, client or "?")
        )

    def close(self) -> None:
        self.closed = True
        for task in self.tasks.values():
            task.cancel()
        for _wait, handle in self.waits.values():
            handle.cancel()
